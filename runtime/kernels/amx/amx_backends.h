// amx_backends.h — the per-backend entry points that are not Kernels table
// members: thread-state release (for amx_release_thread_state) and the tile
// peak loop (for bench/bench_amx.cpp). Internal to the runtime.
#pragma once
#include <cstddef>

namespace amxqa::amx_backend {

// TILERELEASE on this thread if the real kernels configured tiles here.
// No-op when AMX is unusable or not compiled in.
void release_real_tiles();

// Reset the emulator's per-thread tile state (init state, flag cleared).
void release_emulated_tiles();

// Runs `iterations` rounds of 4 TDPBF16PS on register-resident tiles and
// returns the floating-point operations done (2 per multiply-add), or 0 when
// real AMX is not usable. For measuring peak tile throughput only.
double real_bf16_tile_peak(size_t iterations);

}  // namespace amxqa::amx_backend
