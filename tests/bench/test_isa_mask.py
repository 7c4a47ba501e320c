"""bench/peers/isa_mask.c: a child under the mask reads CPUID without the
hidden instruction sets (in its main thread and in threads it starts later),
keeps every bit below the level, still gets its own SIGSEGV handler for real
faults, and refuses to run with no level. With AMXQA_CLI (the amxqa binary,
set by ctest) libamxqa's own dispatch under the avx2 mask picks its AVX2
backend, as on an AVX2-only CPU. Skipped where the kernel or CPU has no CPUID
faulting. Run: PYTHONPATH=bench/peers python3 -m unittest discover -s tests/bench"""
import os
import subprocess
import tempfile
import unittest

import isa_mask

# Prints CPUID leaf 7 subleaf 0 EBX ECX EDX and subleaf 1 EAX, in hex, from
# the main thread and from a thread started afterwards; with an argument it
# installs a SIGSEGV handler that exits 42 (with signal() for "signal", else
# sigaction()), then faults.
PROBE = r"""
#include <cpuid.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void leaf7(void) {
  unsigned a, b, c, d, a1, b1, c1, d1;
  __cpuid_count(7, 0, a, b, c, d);
  __cpuid_count(7, 1, a1, b1, c1, d1);
  printf("%08x %08x %08x %08x\n", b, c, d, a1);
  fflush(stdout);
}
static void* thread_main(void* arg) { (void)arg; leaf7(); return NULL; }
static void on_segv(int sig) { (void)sig; _exit(42); }
int main(int argc, char** argv) {
  leaf7();
  pthread_t t;
  pthread_create(&t, NULL, thread_main, NULL);
  pthread_join(t, NULL);
  if (argc > 1) {
    if (strcmp(argv[1], "signal") == 0) {
      signal(SIGSEGV, on_segv);
    } else {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_segv;
      sigaction(SIGSEGV, &sa, NULL);
    }
    leaf7();  /* still masked once the program has its own handler */
    volatile int* null = NULL;
    return *null;
  }
  return 0;
}
"""

AVX2, AVX512F, AVX512BW, AVX512VNNI, AMX_TILE, AMX_INT8, AVX_VNNI = (
    ("ebx", 5), ("ebx", 16), ("ebx", 30), ("ecx", 11), ("edx", 24), ("edx", 25), ("eax1", 4))


def bits(line):
    return dict(zip(("ebx", "ecx", "edx", "eax1"), (int(x, 16) for x in line.split())))


def has(regs, bit):
    return bool(regs[bit[0]] >> bit[1] & 1)


class IsaMask(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.lib = isa_mask.build(cls.tmp.name)
        try:
            isa_mask.check("avx2", cls.lib)
        except RuntimeError as e:
            raise unittest.SkipTest(str(e))
        src = os.path.join(cls.tmp.name, "probe.c")
        with open(src, "w") as f:
            f.write(PROBE)
        cls.probe = os.path.join(cls.tmp.name, "probe")
        subprocess.run([os.environ.get("CC", "cc"), "-O1", "-pthread", "-o", cls.probe, src], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_probe(self, level, *extra):
        env = dict(os.environ)
        if not level:  # what the CPU says, also where this test itself runs under a mask
            env.pop("LD_PRELOAD", None)
            env.pop("AMXQA_ISA_MASK", None)
        else:
            env = isa_mask.environ(level, self.lib, env)
        return subprocess.run([self.probe, *extra], env=env, capture_output=True, text=True)

    def test_avx2_hides_avx512_vnni_and_amx_in_every_thread(self):
        real = self.run_probe(None).stdout.split("\n")[0]
        if not has(bits(real), AVX2):
            self.skipTest("this CPU has no AVX2")
        out = self.run_probe("avx2")
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.split("\n")[:2]
        self.assertEqual(lines[0], lines[1])  # the thread started later is masked too
        masked, real = bits(lines[0]), bits(real)
        for bit in (AVX512F, AVX512BW, AVX512VNNI, AMX_TILE, AMX_INT8, AVX_VNNI):
            self.assertFalse(has(masked, bit), bit)
        self.assertTrue(has(masked, AVX2))
        # Only hidden bits change: what the mask leaves is what the CPU says.
        for reg in masked:
            self.assertEqual(masked[reg] & ~real[reg], 0, reg)

    def test_avx512_hides_only_amx(self):
        real = bits(self.run_probe(None).stdout.split("\n")[0])
        out = self.run_probe("avx512")
        self.assertEqual(out.returncode, 0, out.stderr)
        masked = bits(out.stdout.split("\n")[0])
        for bit in (AMX_TILE, AMX_INT8):
            self.assertFalse(has(masked, bit), bit)
        for bit in (AVX2, AVX512F, AVX512BW, AVX512VNNI):
            self.assertEqual(has(masked, bit), has(real, bit), bit)

    def test_the_programs_own_segv_handler_still_runs(self):
        for how in ("sigaction", "signal"):  # glibc's signal() bypasses an interposed sigaction
            out = self.run_probe("avx2", how)
            self.assertEqual(out.returncode, 42, how + ": " + out.stderr)
            lines = out.stdout.split("\n")
            self.assertEqual(lines[0], lines[2], how)  # masked after the program's handler

    def test_a_compiler_runs_under_the_mask(self):
        # GCC's cc1 sets its crash handler with signal(): under a mask that
        # missed it, its own CPUID reads came back as internal compiler errors.
        src = os.path.join(self.tmp.name, "empty.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        out = subprocess.run([os.environ.get("CC", "cc"), "-O2", "-c", src, "-o", src + ".o"],
                             env=isa_mask.environ("avx2", self.lib), capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_prepare_gives_a_masked_environment(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = isa_mask.prepare("avx2", tmp)
            out = subprocess.run([self.probe], env=env, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertFalse(has(bits(out.stdout.split("\n")[0]), AVX512F))
        self.assertTrue(has(bits(out.stdout.split("\n")[0]), AVX2))

    def test_no_level_or_an_unknown_one_refuses_to_run(self):
        env = dict(os.environ, LD_PRELOAD=self.lib)
        env.pop("AMXQA_ISA_MASK", None)
        out = subprocess.run([self.probe], env=env, capture_output=True, text=True)
        self.assertEqual(out.returncode, isa_mask.UNSUPPORTED_EXIT)
        self.assertIn("AMXQA_ISA_MASK is not set", out.stderr)
        env["AMXQA_ISA_MASK"] = "sse2"
        out = subprocess.run([self.probe], env=env, capture_output=True, text=True)
        self.assertEqual(out.returncode, isa_mask.UNSUPPORTED_EXIT)
        self.assertIn("must be avx2 or avx512", out.stderr)
        with self.assertRaises(ValueError):
            isa_mask.environ("sse2", self.lib)

    @unittest.skipUnless(os.environ.get("AMXQA_CLI"), "AMXQA_CLI (the amxqa binary) is not set")
    def test_libamxqa_dispatch_under_the_avx2_mask_picks_avx2(self):
        real = subprocess.run([os.environ["AMXQA_CLI"], "cpu"], capture_output=True, text=True, check=True)
        if "avx2+fma     yes" not in real.stdout:
            self.skipTest("this CPU has no AVX2+FMA")
        out = subprocess.run([os.environ["AMXQA_CLI"], "cpu"], env=isa_mask.environ("avx2", self.lib),
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("avx512       no", out.stdout)
        self.assertIn("amx          no", out.stdout)
        self.assertIn("backend      avx2:", out.stdout)


if __name__ == "__main__":
    unittest.main()
