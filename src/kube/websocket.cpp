#include "kube/websocket.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "kube/api_error.h"
#include "net/http.h"
#include "net/redact.h"

namespace lane::kube {
namespace {

constexpr char kGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

std::string base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<size_t>(written));
  return out;
}

// "https://host:443/prefix" -> {"host:443", "/prefix"}.
std::pair<std::string, std::string> split_server(const std::string& server) {
  auto rest = server.substr(server.find("://") == std::string::npos ? 0 : server.find("://") + 3);
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return {rest, ""};
  std::string prefix = rest.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return {rest.substr(0, slash), prefix};
}

bool wait_socket(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, timeout_ms) > 0;
}

}  // namespace

std::string websocket_accept(const std::string& key) {
  const std::string text = key + kGuid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return base64(digest, sizeof digest);
}

std::string encode_ws_frame(WsOpcode op, std::string_view payload, std::optional<uint32_t> mask) {
  std::string f;
  f.push_back(static_cast<char>(0x80 | static_cast<uint8_t>(op)));
  const uint8_t mask_bit = mask ? 0x80 : 0;
  const uint64_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(mask_bit | n));
  } else if (n <= 0xFFFF) {
    f.push_back(static_cast<char>(mask_bit | 126));
    f.push_back(static_cast<char>(n >> 8));
    f.push_back(static_cast<char>(n & 0xFF));
  } else {
    f.push_back(static_cast<char>(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) f.push_back(static_cast<char>((n >> shift) & 0xFF));
  }
  if (!mask) return f.append(payload);
  unsigned char key[4] = {static_cast<unsigned char>(*mask >> 24), static_cast<unsigned char>(*mask >> 16),
                          static_cast<unsigned char>(*mask >> 8), static_cast<unsigned char>(*mask)};
  f.append(reinterpret_cast<const char*>(key), 4);
  const size_t start = f.size();
  f.append(payload);
  for (size_t i = 0; i < payload.size(); ++i) f[start + i] = static_cast<char>(f[start + i] ^ key[i % 4]);
  return f;
}

std::optional<WsMessage> WsFrameDecoder::next() {
  for (;;) {
    const auto* b = reinterpret_cast<const unsigned char*>(buffer_.data());
    if (buffer_.size() < 2) return std::nullopt;
    const bool fin = b[0] & 0x80;
    if (b[0] & 0x70) throw Error("WebSocket: the server set reserved bits (no extension was negotiated)");
    const auto op = static_cast<WsOpcode>(b[0] & 0x0F);
    const bool masked = b[1] & 0x80;
    uint64_t n = b[1] & 0x7F;
    size_t header = 2;
    if (n == 126) {
      if (buffer_.size() < 4) return std::nullopt;
      n = (uint64_t{b[2]} << 8) | b[3];
      header = 4;
    } else if (n == 127) {
      if (buffer_.size() < 10) return std::nullopt;
      n = 0;
      for (int i = 0; i < 8; ++i) n = (n << 8) | b[2 + i];
      header = 10;
    }
    if (masked) throw Error("WebSocket: the server sent a masked frame (RFC 6455 §5.1 forbids it)");
    if (n > (uint64_t{1} << 32)) throw Error("WebSocket: a frame of " + std::to_string(n) + " bytes is too large");
    if (buffer_.size() < header + n) return std::nullopt;
    std::string payload = buffer_.substr(header, static_cast<size_t>(n));
    buffer_.erase(0, header + static_cast<size_t>(n));

    const bool control = static_cast<uint8_t>(op) >= 8;
    if (control) {
      if (!fin || n > 125) throw Error("WebSocket: a control frame was fragmented or longer than 125 bytes");
      if (op != WsOpcode::kClose && op != WsOpcode::kPing && op != WsOpcode::kPong)
        throw Error(fmt::format("WebSocket: unknown control opcode {}", static_cast<int>(op)));
      return WsMessage{op, std::move(payload)};
    }
    if (op == WsOpcode::kContinuation) {
      if (!fragmented_) throw Error("WebSocket: a continuation frame without a message to continue");
      assembled_ += payload;
      if (!fin) continue;
      WsMessage m{*fragmented_, std::move(assembled_)};
      fragmented_.reset();
      assembled_.clear();
      return m;
    }
    if (op != WsOpcode::kText && op != WsOpcode::kBinary)
      throw Error(fmt::format("WebSocket: unknown opcode {}", static_cast<int>(op)));
    if (fragmented_) throw Error("WebSocket: a new message began before the fragmented one ended");
    if (fin) return WsMessage{op, std::move(payload)};
    fragmented_ = op;
    assembled_ = std::move(payload);
  }
}

WebSocket::WebSocket(const Connection& connection, const Credential& credential, const std::string& path,
                     const std::vector<std::string>& protocols, const std::string& context)
    : context_(context) {
  const auto [authority, prefix] = split_server(connection.server);
  const std::string failed = connection_.connect(connection.server, tls_options(connection, credential), 10);
  if (!failed.empty())
    throw TransportError(fmt::format("{}: cannot connect to {}: {}", context, net::redact_url(connection.server), failed), false);
  fd_ = connection_.socket();

  unsigned char nonce[16];
  RAND_bytes(nonce, sizeof nonce);
  const std::string key = base64(nonce, sizeof nonce);
  std::string offered;
  for (const auto& p : protocols) offered += (offered.empty() ? "" : ", ") + p;
  std::string request = fmt::format(
      "GET {}{} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: {}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {}\r\n"
      "User-Agent: lanectl\r\n",
      prefix, path, authority, key, offered);
  if (!credential.bearer_token.empty()) request += "Authorization: Bearer " + credential.bearer_token + "\r\n";
  request += "\r\n";
  send_raw(request);

  // The answer's head, then (for a refusal) its body.
  std::string head;
  char buf[16384];
  size_t end = std::string::npos;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    if (!wait_socket(fd_, POLLIN, 30000)) throw TransportError(context + ": no answer to the WebSocket upgrade", true);
    const size_t got = recv_some(buf, sizeof buf);
    if (closed_) throw TransportError(context + ": the server closed the connection during the upgrade", true);
    head.append(buf, got);
  }
  std::string rest = head.substr(end + 4);
  head.resize(end);
  int code = 0;
  if (std::sscanf(head.c_str(), "HTTP/%*s %d", &code) != 1)
    throw TransportError(context + ": the server's answer to the WebSocket upgrade is not HTTP", true);
  net::Response answer;  // the headers after the status line
  for (size_t line = head.find("\r\n"); line != std::string::npos;) {
    const size_t next = head.find("\r\n", line + 2);
    const auto text = std::string_view(head).substr(line + 2, next == std::string::npos ? next : next - line - 2);
    if (auto header = net::parse_header_line(text)) answer.headers.insert(std::move(*header));
    line = next;
  }
  const std::string length = answer.header("content-length");
  protocol_ = answer.header("sec-websocket-protocol");
  if (code != 101) {
    // A refusal carries a Status: read the body (Content-Length, else until the server closes).
    size_t want = std::string::npos;  // a missing or malformed length: until the server closes
    char* end_of_number = nullptr;
    const unsigned long long declared = std::strtoull(length.c_str(), &end_of_number, 10);
    if (!length.empty() && *end_of_number == '\0') want = static_cast<size_t>(declared);
    while (rest.size() < want && !closed_ && wait_socket(fd_, POLLIN, 10000)) rest.append(buf, recv_some(buf, sizeof buf));
    throw api_error_from_response(code, rest, context);
  }
  if (answer.header("sec-websocket-accept") != websocket_accept(key))
    throw Error(context + ": the server's Sec-WebSocket-Accept does not match our key (not a WebSocket server?)");
  if (std::find(protocols.begin(), protocols.end(), protocol_) == protocols.end())
    throw Error(fmt::format("{}: the server chose the subprotocol '{}', which lanectl did not offer ({})", context,
                            protocol_, offered));
  decoder_.feed(rest);
}

WebSocket::~WebSocket() = default;

void WebSocket::send_raw(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto io = connection_.send(bytes);
    if (io.again) {
      wait_socket(fd_, POLLOUT, 1000);
      continue;
    }
    if (!io.error.empty()) throw TransportError(fmt::format("{}: send failed: {}", context_, io.error), true);
    bytes.remove_prefix(io.bytes);
  }
}

size_t WebSocket::recv_some(char* buf, size_t size) {
  const auto io = connection_.receive(buf, size);
  if (io.again) return 0;
  if (!io.error.empty() || io.bytes == 0) {
    closed_ = true;
    return 0;
  }
  return io.bytes;
}

void WebSocket::send(WsOpcode op, std::string_view payload) {
  uint32_t mask = 0;
  RAND_bytes(reinterpret_cast<unsigned char*>(&mask), sizeof mask);
  send_raw(encode_ws_frame(op, payload, mask));
}

std::vector<WsMessage> WebSocket::read_available() {
  char buf[65536];
  for (;;) {  // drain the socket (TLS may hold more than one poll() shows)
    const size_t got = recv_some(buf, sizeof buf);
    if (got == 0) break;
    decoder_.feed(std::string_view(buf, got));
  }
  std::vector<WsMessage> out;
  while (auto m = decoder_.next()) {
    if (m->opcode == WsOpcode::kPing) {
      send(WsOpcode::kPong, m->payload);
      continue;
    }
    if (m->opcode == WsOpcode::kPong) continue;
    if (m->opcode == WsOpcode::kClose) close(1000);
    out.push_back(std::move(*m));
  }
  return out;
}

void WebSocket::close(uint16_t code) {
  if (close_sent_ || closed_) return;
  close_sent_ = true;
  const char payload[2] = {static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
  try {
    send(WsOpcode::kClose, std::string_view(payload, 2));
  } catch (const TransportError&) {
    // The peer is gone already: nothing left to close.
  }
}

}  // namespace lane::kube
