// tile_product_emulated.cpp — tile_product_impl.h on the portable tile
// emulator, so every CPU tests the trainer's tile path (slowly).
#include "kernels/training/sgemm_bf16.h"

#define AMXQA_TILES_EMULATED 1
#include "kernels/training/tile_product_impl.h"

namespace amxqa {

TileProduct tile_product_emulated() { return &amx_emulated::tile_product; }

}  // namespace amxqa
