#include "train/trainer/stop_signal.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

namespace lane::train {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_first_second = 0;  // CLOCK_MONOTONIC seconds of the first signal

// One stop may arrive twice at once: a signal to the process group, and a launcher or init that
// passes it on. A second signal counts from 2 s on.
constexpr long kRepeatSeconds = 2;

long monotonic_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return static_cast<long>(t.tv_sec);
}

void on_stop_signal(int signo) {
  if (g_signal == 0) {
    g_first_second = static_cast<std::sig_atomic_t>(monotonic_seconds());
    g_signal = signo;
    return;
  }
  if (monotonic_seconds() - g_first_second < kRepeatSeconds) return;  // the same stop, delivered twice
  ::signal(signo, SIG_DFL);  // a second stop: the default action now (the process ends by it)
  ::raise(signo);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  // The output may go away before the run stops: mpirun closes the pipes that carry its ranks'
  // output to the job log as soon as it is stopped, and a rank's next line would end it by
  // SIGPIPE before it saves. A write to a closed stdout fails instead (the line is lost).
  ::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return g_signal; }

void die_by_stop_signal() {
  const int signo = g_signal != 0 ? static_cast<int>(g_signal) : SIGTERM;
  ::signal(signo, SIG_DFL);
  ::raise(signo);
  std::_Exit(128 + signo);  // not reached: the default action of SIGTERM and SIGINT ends the process
}

}  // namespace lane::train
