#pragma once
// `kubectl exec` without kubectl: the pods/exec subresource over a WebSocket with the
// channel protocol (v5.channel.k8s.io, falling back to v4). Each binary message starts with
// a stream id: 0 stdin, 1 stdout, 2 stderr, 3 the final Status (exit code), 4 terminal size;
// v5 adds 255, "close stream", which is how stdin's end reaches the remote command.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/websocket.h"

namespace lane::kube {

struct PodExecRequest {
  std::string ns, pod, container;   // container empty: the pod's only container
  std::vector<std::string> command;
  bool stdin = false;               // send in_fd's bytes to the command
  bool tty = false;                 // a remote terminal (raw local terminal when in_fd is one)
  bool attach = false;              // pods/attach: join the container's main process (command unused)
};

struct PodExecIo {
  int in_fd = 0;
  std::function<void(std::string_view)> out, err;
};

// The request path (query with one command= per word; pods/attach without), relative to the server.
std::string pod_exec_path(const PodExecRequest& request);

// The subprotocols offered, in order of preference.
const std::vector<std::string>& pod_exec_protocols();

// Runs the session on an upgraded connection until the command's Status arrives (or the
// server closes the stream) and returns the remote exit code. A failure that is not an exit
// code (e.g. the executable does not exist) throws lane::Error with the server's message.
int run_pod_exec(WebSocket& socket, const PodExecRequest& request, PodExecIo& io);

}  // namespace lane::kube
