// isa_select.h — which kernel table a session runs: what this build and this
// CPU/OS can run, the AMXQA_MAX_ISA cap, and the resolution of a requested ISA.
#pragma once
#include <cstddef>

#include "amxqa.h"

namespace amxqa {

// True when this build has the table and this CPU/OS can run it
// (AMX additionally needs amx_status().usable; AMX_EMULATED always runs).
bool isa_available(amxqa_isa isa);

// Reads AMXQA_MAX_ISA (amx|avx512|avx2|neon-dotprod|neon|scalar, case-insensitive; "auto" or
// unset: no cap). Copies the raw value, "" if unset, into seen[seen_cap]
// when seen is non-null. Unknown values cap nothing and set *bad = true.
amxqa_isa max_isa_from_env(char* seen, size_t seen_cap, bool* bad);

// The ISA a session with options.isa == requested runs, under the cap `cap`
// (AMXQA_ISA_AUTO: no cap). AUTO picks the best available ISA <= cap. An
// explicit hardware ISA must be available (else AMXQA_ERR_UNSUPPORTED_ISA)
// and is then lowered to the best available ISA <= cap if it exceeds it.
// AMX_EMULATED is portable code and only ever chosen explicitly; the cap
// does not apply to it.
amxqa_status resolve_isa(amxqa_isa requested, amxqa_isa cap, amxqa_isa* out);

// CPU facts the kernel tables choose their kernels by. Every choice computes
// the same bits; these only pick the faster kernel.
// AVX512-VNNI (vpdpbusd) is usable: the AVX-512 table's int8 kernels.
bool cpu_has_avx512_vnni();
// A zmm FMA outruns a ymm one. Not on AMD family 19h (Zen 3/4), which runs a
// 512-bit FMA as two 256-bit halves: one Zen 4 core measured 116 GFLOP/s
// fp32 on zmm and 117 on ymm (bench/results/amd-epyc-cd7f9e1a.md).
bool cpu_zmm_fma_outruns_ymm();

}  // namespace amxqa
