#pragma once
// The job API: the one narrow way from inside a job back to the backend, in place of the state
// directory jobs no longer see (as a pod calls the Kubernetes API with its namespace's rights).
// The supervisor listens on a Unix socket that appears in the job at $LANECTL_JOB_API; a request
// is one JSON object, the reply one JSON object ({"ok": true, ...} or {"ok": false, "error": ...}).
// The job's identity (project, name) comes from the supervisor, never from the request.
// Operations: "snapshot" (the end-of-training snapshot; job_api_snapshot.cpp).
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace lane::submit::local {

// Client: sends `request` to the socket and returns the reply. Throws lane::Error when the
// socket cannot be reached or the reply is {"ok": false}.
nlohmann::json job_api_call(const std::string& socket_path, const nlohmann::json& request);

// Server: a listening socket at `path`, owned by the job's user. Returns the fd.
int job_api_listen(const std::filesystem::path& path, uid_t uid, gid_t gid);

// Bounds: at most kJobApiHandlers requests are answered at once (one child process each), a
// request is at most kJobApiRequestBytes and must arrive within kJobApiRequestSeconds.
inline constexpr size_t kJobApiHandlers = 4;
inline constexpr size_t kJobApiRequestBytes = 64 * 1024;
inline constexpr int kJobApiRequestSeconds = 10;

// Server: accepts one connection and answers it in a child process (so that the supervisor
// keeps copying the job's output meanwhile). `handle` gets the request and the client's pid.
// With `running` handlers already at kJobApiHandlers, the connection gets an error reply at
// once, from this process, and is closed. Returns the child's pid (0 when none was started).
using JobApiHandler = std::function<nlohmann::json(const nlohmann::json& request, pid_t peer)>;
pid_t job_api_serve_one(int listen_fd, const JobApiHandler& handle, size_t running);

}  // namespace lane::submit::local
