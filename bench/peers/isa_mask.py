"""Runs a peer as on a CPU with fewer instruction sets: builds isa_mask.c (an
LD_PRELOAD library; see its header) with the system C compiler and returns the
environment that loads it. Standard library only.

  env = isa_mask.prepare("avx2", tmp)  # builds tmp/libamxqa_isa_mask.so, checks it runs
  subprocess.run(cmd, env=env)         # the peer picks its AVX2 kernels

LEVELS are the AMXQA_MAX_ISA names whose peers it can stand in for: "avx2"
hides every AVX-512 subset, AVX-VNNI and AMX; "avx512" hides AMX. check()
runs a child under the mask and raises where this kernel or CPU has no CPUID
faulting (the library then exits 97 instead of letting a peer run unmasked)."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = ("avx2", "avx512")
UNSUPPORTED_EXIT = 97


def build(folder, cc=None):
    """Compiles isa_mask.c into folder; returns the library's path."""
    lib = os.path.join(folder, "libamxqa_isa_mask.so")
    cmd = [cc or os.environ.get("CC", "cc"), "-O2", "-Wall", "-shared", "-fPIC", "-o", lib,
           os.path.join(HERE, "isa_mask.c"), "-ldl"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return lib


def environ(level, lib, base=None):
    """A copy of base (default os.environ) that runs children with `level`'s mask."""
    if level not in LEVELS:
        raise ValueError(f"ISA mask level {level!r} is not one of {', '.join(LEVELS)}")
    env = dict(os.environ if base is None else base)
    env["LD_PRELOAD"] = lib + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["AMXQA_ISA_MASK"] = level
    return env


def check(level, lib):
    """Raises RuntimeError where the mask cannot run here (no CPUID faulting)."""
    done = subprocess.run(["true"], env=environ(level, lib), capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"the ISA mask cannot run here (exit {done.returncode}): {done.stderr.strip()}")


def prepare(level, folder):
    """build() into folder, check() it here; returns environ(level, lib)."""
    lib = build(folder)
    check(level, lib)
    return environ(level, lib)
