// The blocking kernel of the timer (nvbench's cold measurement does the same): a one-thread
// kernel that holds a stream until the host releases it, so that a timed launch is already in
// the queue when the GPU reaches its start event. Without it, a launch that the GPU runs faster
// than the host enqueues it is timed from the start event to its end, the host's enqueue included.
// Private to the bench layer.
#pragma once

#include <cuda_runtime_api.h>

namespace tilegemm::bench {

// Words the host and the hold kernel share, in mapped pinned memory.
struct HoldWords {
  unsigned release;    // written by the host: holds with a ticket up to this one may go on
  unsigned timed_out;  // written by a hold kernel that gave up waiting: its ticket
};

// Enqueues a hold on `stream`: a kernel that spins until release reaches `ticket` (in wrapping
// order), or `timeout_ns` of the GPU's global timer have passed, when it writes the ticket to
// timed_out and ends. `words` is the device address of the mapped words.
cudaError_t enqueue_hold(cudaStream_t stream, HoldWords* words, unsigned ticket,
                         unsigned long long timeout_ns);

}  // namespace tilegemm::bench
