#pragma once
// A WebSocket client (RFC 6455) for the API server's streaming subresources (pods/exec).
// libcurl 7.88 has no ws:// support, so the connection is lane_net's RawConnection (libcurl's
// CONNECT_ONLY socket: TCP and the same TLS and credentials as every other request) and the
// upgrade and the framing are done here. Client frames are always masked, as the RFC requires.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/credentials.h"
#include "kube/kubeconfig.h"
#include "net/transport.h"

namespace lane::kube {

enum class WsOpcode : uint8_t { kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };

struct WsMessage {
  WsOpcode opcode;
  std::string payload;
};

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
std::string websocket_accept(const std::string& key);

// One frame with FIN set; `mask` empty: unmasked (a server's frame, for tests).
std::string encode_ws_frame(WsOpcode op, std::string_view payload, std::optional<uint32_t> mask);

// Turns the byte stream from the server into messages: fragmented messages are joined,
// control frames (close, ping, pong) come out as they arrive, even between fragments.
// Throws lane::Error on a protocol violation.
class WsFrameDecoder {
 public:
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  std::optional<WsMessage> next();

 private:
  std::string buffer_;
  std::optional<WsOpcode> fragmented_;  // opcode of the message being assembled
  std::string assembled_;
};

class WebSocket {
 public:
  // Connects to connection.server + path and upgrades, offering `protocols` in order of
  // preference. A refusal (any answer but 101) throws the ApiError its Status describes;
  // `context` prefixes error messages ("exec in pod ns/name").
  WebSocket(const Connection& connection, const Credential& credential, const std::string& path,
            const std::vector<std::string>& protocols, const std::string& context);
  ~WebSocket();
  WebSocket(const WebSocket&) = delete;
  WebSocket& operator=(const WebSocket&) = delete;

  const std::string& protocol() const { return protocol_; }  // what the server chose
  int socket() const { return fd_; }                        // poll() it for reading

  void send(WsOpcode op, std::string_view payload);
  // Reads what the socket has without blocking and returns the complete messages. Pings are
  // answered here; a close frame is answered and returned. Sets closed() at end of stream.
  std::vector<WsMessage> read_available();
  bool closed() const { return closed_; }
  // Sends a close frame (once).
  void close(uint16_t code = 1000);

 private:
  void send_raw(std::string_view bytes);
  size_t recv_some(char* buf, size_t size);  // 0: nothing now (or end of stream: closed_)

  // A member, so a constructor that throws (a refused upgrade) still closes it.
  net::RawConnection connection_;
  int fd_ = -1;
  std::string protocol_;
  std::string context_;
  WsFrameDecoder decoder_;
  bool closed_ = false, close_sent_ = false;
};

}  // namespace lane::kube
