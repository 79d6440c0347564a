#pragma once
// SIGTERM and SIGINT during training: the first asks the run to stop after the step in progress
// and save its checkpoint, as a preempted job must within its grace period (the local backend
// and Kubernetes send SIGTERM, then SIGKILL); a second one, 2 s or more after the first, ends the
// process at once (one stop may be delivered twice at the same moment).
namespace lane::train {

// Installs the handlers (the handler only records the signal) and ignores SIGPIPE (a closed
// stdout must not end the run before it saves). Call once, before the loop.
void install_stop_handlers();
// The signal that asked to stop (SIGTERM or SIGINT), 0 when none has.
int stop_signal();
// After the checkpoint is saved: ends the process by that signal (default action), so whoever
// started it sees it stopped by the signal, as without the handlers.
[[noreturn]] void die_by_stop_signal();

}  // namespace lane::train
