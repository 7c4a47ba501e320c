// tile_product_amx.cpp — tile_product_impl.h on real AMX tiles (compiled
// with -mamx-*; used only when amx_status().usable).
#include "cpu/amx_detect.h"
#include "kernels/training/sgemm_bf16.h"

#if defined(__x86_64__)
#define AMXQA_TILES_REAL 1
#include "kernels/training/tile_product_impl.h"

namespace amxqa {

TileProduct tile_product_amx() { return amx_status().usable ? &amx_real::tile_product : nullptr; }

}  // namespace amxqa
#else
namespace amxqa {
TileProduct tile_product_amx() { return nullptr; }
}  // namespace amxqa
#endif
