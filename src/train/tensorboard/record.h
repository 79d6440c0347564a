#pragma once
// TFRecord framing, the container of TensorBoard event files: each record is its length (uint64,
// little-endian), the masked CRC32C of those 8 bytes, the data, and the masked CRC32C of the data.
#include <cstdint>
#include <string>
#include <string_view>

namespace lane::train::tensorboard {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven; "123456789" -> 0xE3069283.
uint32_t crc32c(std::string_view data);

// The checksum as TFRecord stores it: rotated right by 15 bits plus 0xa282ead8.
uint32_t masked_crc32c(std::string_view data);

// One whole record holding `data`.
std::string frame_record(std::string_view data);

}  // namespace lane::train::tensorboard
