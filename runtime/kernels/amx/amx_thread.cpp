// amx_thread.cpp — amx_release_thread_state(): one call releases whatever tile
// state this thread holds, real or emulated.
#include "kernels/amx/amx_thread.h"

#include "kernels/amx/amx_backends.h"

namespace amxqa {

void amx_release_thread_state() {
  amx_backend::release_real_tiles();
  amx_backend::release_emulated_tiles();
}

}  // namespace amxqa
