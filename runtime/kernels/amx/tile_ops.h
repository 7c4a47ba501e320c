// tile_ops.h — the one switch between real AMX instructions and the tile
// emulator. A translation unit defines exactly one of
//   AMXQA_TILES_REAL      (kernels_amx.cpp, compiled with -mamx-*)
//   AMXQA_TILES_EMULATED  (kernels_amx_emulated.cpp, portable)
// before including amx_gemm_impl.h, and gets the same kernel source bound to
// that backend inside namespace amxqa::AMXQA_TILE_NS (distinct per backend,
// so the two instantiations never merge at link time).
//
// Tile register numbers must be integer literals (the real instructions
// encode them). Why our own asm instead of GCC's <immintrin.h> _tile_*:
// GCC 12's _tile_loadconfig declares an 8-byte memory input for a 64-byte
// operand and _tile_loadd declares no memory input at all, so the compiler
// may drop or sink the stores that fill a buffer just before it is loaded.
// Every macro below that touches memory says so ("memory" clobber).
#pragma once

// The TileConfig layout (and, emulated, the instructions) for both backends.
#include "kernels/amx/tile_emulator.h"

#if defined(AMXQA_TILES_REAL) == defined(AMXQA_TILES_EMULATED)
#error "define exactly one of AMXQA_TILES_REAL, AMXQA_TILES_EMULATED"
#endif

#if defined(AMXQA_TILES_REAL)
#if !defined(__x86_64__)
#error "real AMX tiles need x86-64"
#endif
#define AMXQA_TILE_NS amx_real
#define AMXQA_TILE_LOADCONFIG(cfg) \
  __asm__ volatile("ldtilecfg %0" ::"m"(*static_cast<const ::amxqa::amx_emu::TileConfig*>(cfg)) : "memory")
#define AMXQA_TILE_STORECONFIG(cfg) \
  __asm__ volatile("sttilecfg %0" : "=m"(*static_cast<::amxqa::amx_emu::TileConfig*>(cfg)) :: "memory")
#define AMXQA_TILE_RELEASE() __asm__ volatile("tilerelease" ::: "memory")
#define AMXQA_TILE_ZERO(t) __asm__ volatile("tilezero %%tmm" #t ::)
#define AMXQA_TILE_LOAD(t, base, stride)                                               \
  __asm__ volatile("tileloadd (%0,%1,1), %%tmm" #t ::"r"(static_cast<const void*>(base)), \
                   "r"(static_cast<long>(stride))                                      \
                   : "memory")
#define AMXQA_TILE_STORE(t, base, stride)                                        \
  __asm__ volatile("tilestored %%tmm" #t ", (%0,%1,1)" ::"r"(static_cast<void*>(base)), \
                   "r"(static_cast<long>(stride))                                \
                   : "memory")
#define AMXQA_TILE_DPBF16PS(c, a, b) __asm__ volatile("tdpbf16ps %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)
#define AMXQA_TILE_DPBSSD(c, a, b) __asm__ volatile("tdpbssd %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)
#else
#define AMXQA_TILE_NS amx_emulated
// Faults cannot happen with the kernels' fixed, valid configuration; the
// emulator still records any in its sticky per-thread flag for tests.
#define AMXQA_TILE_LOADCONFIG(cfg) (void)::amxqa::amx_emu::ldtilecfg(cfg)
#define AMXQA_TILE_STORECONFIG(cfg) (void)::amxqa::amx_emu::sttilecfg(cfg)
#define AMXQA_TILE_RELEASE() ::amxqa::amx_emu::tilerelease()
#define AMXQA_TILE_ZERO(t) (void)::amxqa::amx_emu::tilezero(t)
#define AMXQA_TILE_LOAD(t, base, stride) (void)::amxqa::amx_emu::tileloadd(t, base, stride)
#define AMXQA_TILE_STORE(t, base, stride) (void)::amxqa::amx_emu::tilestored(t, base, stride)
#define AMXQA_TILE_DPBF16PS(c, a, b) (void)::amxqa::amx_emu::tdpbf16ps(c, a, b)
#define AMXQA_TILE_DPBSSD(c, a, b) (void)::amxqa::amx_emu::tdpbssd(c, a, b)
#endif

