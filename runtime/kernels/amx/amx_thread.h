// amx_thread.h — per-thread AMX tile state. The tile kernels load their tile
// configuration once per thread and keep it; amx_release_thread_state()
// (called by amxqa_session_finish) releases the tiles (TILERELEASE) so the
// OS stops saving/restoring 8 KiB of tile data on every context switch, and
// resets the emulator's per-thread state. Safe to call on any CPU, any time.
#pragma once

namespace amxqa {

void amx_release_thread_state();

}  // namespace amxqa
