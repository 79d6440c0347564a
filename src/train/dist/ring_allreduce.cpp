#include "train/dist/ring_allreduce.h"

#ifdef LANE_WITH_MPI

#include <algorithm>
#include <string>

#include "common/error.h"
#include "train/dist/deadline.h"

namespace lane::dist {

namespace {

// Plain loop over restrict pointers: g++ -O3 vectorises it.
void add_into(float* __restrict dst, const float* __restrict src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

// The last reduce-scatter step: the chunk's sum is complete here, so scale it on the way.
void add_scaled_into(float* __restrict dst, const float* __restrict src, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) dst[i] = (dst[i] + src[i]) * scale;
}

int mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

void RingAllreduce::attach(MPI_Comm comm, int rank, int size) {
  comm_ = comm;
  rank_ = rank;
  size_ = size;
  left_ = mod(rank - 1, size);
  right_ = mod(rank + 1, size);
  set_chunk_bytes(kDefaultChunkBytes);
}

void RingAllreduce::set_chunk_bytes(size_t bytes) {
  if (bytes < sizeof(float) || bytes > (size_t{1} << 30))
    throw UsageError("ring chunk size " + std::to_string(bytes) +
                     " B is out of range; use 4 B .. 1 GiB (default 512 KiB)");
  chunk_elems_ = bytes / sizeof(float);
  scratch_.assign(kScratchBuffers * chunk_elems_, 0.0f);  // allocated and touched once
  planned_count_ = static_cast<size_t>(-1);
}

// The receive schedule for `count` elements: at step s rank r receives segment (r-s-1) mod N
// from its left neighbour, chunk by chunk; it is what the left neighbour sends at step s.
void RingAllreduce::plan(size_t count) {
  if (count == planned_count_) return;
  const int n = size_;
  seg_offset_.resize(n);
  seg_count_.resize(n);
  size_t off = 0;
  for (int j = 0; j < n; ++j) {
    seg_count_[j] = count / n + (static_cast<size_t>(j) < count % n ? 1 : 0);
    seg_offset_[j] = off;
    off += seg_count_[j];
  }
  items_.clear();
  step_begin_.clear();
  for (int s = 0; s < 2 * (n - 1); ++s) {
    step_begin_.push_back(items_.size());
    int seg = mod(rank_ - s - 1, n);
    for (size_t k = 0; k * chunk_elems_ < seg_count_[seg]; ++k)
      items_.push_back({s, seg_offset_[seg] + k * chunk_elems_,
                        std::min(chunk_elems_, seg_count_[seg] - k * chunk_elems_)});
  }
  step_begin_.push_back(items_.size());
  size_t first_sends = (seg_count_[rank_] + chunk_elems_ - 1) / chunk_elems_;
  recv_req_.assign(items_.size(), MPI_REQUEST_NULL);
  send_req_.assign(first_sends + items_.size(), MPI_REQUEST_NULL);
  planned_count_ = count;
}

void RingAllreduce::allreduce(float* data, size_t count, float scale) {
  if (size_ == 1 || count == 0) return;  // one rank: the sum, and the mean, is the data
  plan(count);
  const int n = size_;
  const size_t n0 = send_req_.size() - items_.size();  // step-0 sends (our own segment)
  const size_t n_items = items_.size();
  const size_t window = kScratchBuffers;

  for (size_t k = 0; k < n0; ++k) {
    size_t off = seg_offset_[rank_] + k * chunk_elems_;
    int len = static_cast<int>(std::min(chunk_elems_, seg_count_[rank_] - k * chunk_elems_));
    MPI_Isend(data + off, len, MPI_FLOAT, right_, 0, comm_, &send_req_[k]);
  }

  // The send that last read item i's region: an allgather receive overwrites a region we
  // sent during reduce-scatter, so that send must have completed before the receive is posted.
  auto prior_send = [&](size_t i) -> MPI_Request* {
    const Item& it = items_[i];
    if (it.step < n - 1) return nullptr;
    int s_prev = it.step + 1 - n;  // reduce-scatter step that sent this segment
    size_t k = i - step_begin_[it.step];
    return s_prev == 0 ? &send_req_[k] : &send_req_[n0 + step_begin_[s_prev - 1] + k];
  };
  size_t next_post = 0;
  // Posts receives up to `window` items ahead; returns false when one must wait for a send.
  auto post_ahead = [&](size_t q) {
    while (next_post < n_items && next_post < q + window) {
      const Item& it = items_[next_post];
      float* dst;
      if (it.step < n - 1) {
        dst = scratch_.data() + (next_post % window) * chunk_elems_;  // free: item-window done
      } else {
        MPI_Request* prior = prior_send(next_post);
        int done = 1;
        if (prior && *prior != MPI_REQUEST_NULL) MPI_Test(prior, &done, MPI_STATUS_IGNORE);
        if (!done) return;
        dst = data + it.offset;
      }
      MPI_Irecv(dst, static_cast<int>(it.count), MPI_FLOAT, left_, it.step, comm_,
                &recv_req_[next_post]);
      ++next_post;
    }
  };

  for (size_t q = 0; q < n_items; ++q) {
    const Item& it = items_[q];
    PollPacer pacer(timeout_s_);
    for (;;) {
      post_ahead(q);
      if (next_post > q) {
        int done = 0;
        MPI_Test(&recv_req_[q], &done, MPI_STATUS_IGNORE);
        if (done) break;
      }
      if (!pacer.pause()) {
        char msg[160];
        if (next_post > q)
          std::snprintf(msg, sizeof msg, "no data from rank %d for %g s", left_, timeout_s_);
        else
          std::snprintf(msg, sizeof msg, "rank %d took no data for %g s", right_, timeout_s_);
        abort_job(rank_, msg);
      }
    }
    if (it.step < n - 1) {
      const float* incoming = scratch_.data() + (q % window) * chunk_elems_;
      if (it.step == n - 2 && scale != 1.0f)
        add_scaled_into(data + it.offset, incoming, it.count, scale);
      else
        add_into(data + it.offset, incoming, it.count);
    }
    // Pipelining: this chunk is final for this step, so it goes out at once for the next.
    if (it.step + 1 < 2 * (n - 1))
      MPI_Isend(data + it.offset, static_cast<int>(it.count), MPI_FLOAT, right_, it.step + 1,
                comm_, &send_req_[n0 + q]);
  }
  wait_all_or_abort(static_cast<int>(send_req_.size()), send_req_.data(), rank_, -1, timeout_s_,
                    "ring allreduce (sends to the right neighbour)");
}

}  // namespace lane::dist
#endif
