// tile_emulator.h — a portable model of the AMX tile unit, written from the
// pseudocode of the Intel SDM (LDTILECFG, TILELOADD, TILESTORED, TILEZERO,
// TDPBF16PS, TDPBSSD, TILERELEASE), so the tile kernels of amx_gemm_impl.h
// can run and be tested on CPUs without AMX (AMXQA_ISA_AMX_EMULATED).
//
// State: one thread_local struct per thread (8 tiles x 16 rows x 64 bytes,
// the 64-byte configuration and TILES_CONFIGURED), never on the heap, exactly
// like the architectural state the OS saves per thread.
//
// Faults: where the hardware raises #GP or #UD, the emulator leaves every
// tile and the configuration unchanged, returns a TileFault and records it in
// a sticky per-thread flag (tile_fault()), so tests can check the rejection
// without a signal and a kernel can never crash a process.
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa::amx_emu {

// The 64-byte memory operand of LDTILECFG / STTILECFG, palette 1 layout.
struct TileConfig {
  uint8_t palette_id;
  uint8_t start_row;
  uint8_t reserved[14];  // must be zero
  uint16_t colsb[16];    // bytes per row of tile n (tiles 8..15 must be zero)
  uint8_t rows[16];      // rows of tile n (tiles 8..15 must be zero)
};
static_assert(sizeof(TileConfig) == 64, "the LDTILECFG operand is 64 bytes");

// Palette 1 geometry (CPUID leaf 0x1D subleaf 1 on Sapphire Rapids).
constexpr int kMaxNames = 8;
constexpr int kMaxRows = 16;
constexpr int kBytesPerRow = 64;

enum class TileFault : uint8_t {
  none = 0,
  null_pointer,        // memory operand is nullptr (hardware: #PF/#GP)
  bad_palette,         // LDTILECFG: palette_id > 1 (#GP)
  reserved_nonzero,    // LDTILECFG: bytes 2..15, or colsb/rows of tiles 8..15, not zero (#GP)
  colsb_too_large,     // LDTILECFG: colsb > 64 (#GP)
  rows_too_large,      // LDTILECFG: rows > 16 (#GP)
  rows_colsb_mismatch, // LDTILECFG: exactly one of rows/colsb is zero (#GP)
  not_configured,      // tile instruction while TILES_CONFIGURED == 0 (#UD)
  bad_tile_index,      // tile register number outside 0..7 (not encodable)
  same_register,       // TDP*: two operands name the same tile (#UD)
  shape_mismatch,      // TDP*: operand shapes inconsistent (#UD)
};

const char* tile_fault_name(TileFault f);

// Each returns TileFault::none on success; on a fault, state is unchanged.
TileFault ldtilecfg(const void* cfg64);  // palette 0: back to the init state
TileFault sttilecfg(void* cfg64);        // writes 64 zero bytes when not configured
TileFault tileloadd(int t, const void* base, size_t stride_bytes);
TileFault tilestored(int t, void* base, size_t stride_bytes);
TileFault tilezero(int t);
TileFault tdpbf16ps(int dst, int src1, int src2);
TileFault tdpbssd(int dst, int src1, int src2);
void tilerelease();  // init state: not configured, all tiles zero

// Per-thread introspection for tests.
bool tiles_configured();
TileFault tile_fault();  // the first fault since clear_tile_fault()
void clear_tile_fault();

}  // namespace amxqa::amx_emu
