/* isa_mask.c — an LD_PRELOAD library that hides instruction sets from one
 * process's CPUID, so a peer that picks its kernels at run time (ONNX
 * Runtime's MLAS, libcpuinfo, glibc's ifuncs resolved later) runs the kernels
 * it would run on a CPU without them. It lets one machine time a peer on
 * the ISA that libamxqa's AMXQA_MAX_ISA caps libamxqa to: ONNX Runtime int8
 * on an Intel Xeon uses AMX or AVX-512 VNNI, so comparing it with libamxqa's
 * AVX2 backend is not like for like; with AMXQA_ISA_MASK=avx2 it runs its
 * AVX2 kernels (vpmaddubsw + vpmaddwd), as on an AVX2-only CPU.
 *
 *   AMXQA_ISA_MASK=avx2    hide AVX-512 (every subset), AVX-VNNI, AVX-IFMA and AMX
 *   AMXQA_ISA_MASK=avx512  hide AMX only
 *
 * How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID 0, /proc/cpuinfo's
 * cpuid_fault; inherited by threads and forks, reset by execve, which reloads
 * this library) turns every CPUID in user space into a SIGSEGV. The handler
 * lifts the faulting for one real CPUID, clears the hidden bits, writes the
 * registers back and steps over the 2-byte instruction. A SIGSEGV handler that
 * the program installs later (node, V8) is chained behind this one instead of
 * replacing it (sigaction and signal are interposed for SIGSEGV).
 *
 * What it cannot hide: XGETBV (the OS-enabled state) and instructions run
 * without asking CPUID first (code compiled for -march=native). Where the
 * kernel or CPU lacks CPUID faulting, or AMXQA_ISA_MASK names no level, it
 * prints why and exits 97 rather than time an unmasked peer.
 * bench/peers/isa_mask.py builds it with the system C compiler. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

enum { kRegA, kRegB, kRegC, kRegD };

/* Bits of CPUID leaf 7 hidden at each level, by subleaf and register. */
struct hidden {
  uint32_t sub0[4];
  uint32_t sub1[4];
};

#define B(n) (1u << (n))
static const struct hidden kAmx = {
    /* EDX: AMX-BF16 22, AMX-TILE 24, AMX-INT8 25 */
    .sub0 = {0, 0, 0, B(22) | B(24) | B(25)},
    /* EAX: AMX-FP16 21; EDX: AMX-COMPLEX 8 */
    .sub1 = {B(21), 0, 0, B(8)},
};
static const struct hidden kAvx512AndUp = {
    /* EBX: F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31 */
    .sub0 = {0, B(16) | B(17) | B(21) | B(26) | B(27) | B(28) | B(30) | B(31),
             /* ECX: VBMI 1, VBMI2 6, VNNI 11, BITALG 12, VPOPCNTDQ 14 */
             B(1) | B(6) | B(11) | B(12) | B(14),
             /* EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, FP16 23, and AMX */
             B(2) | B(3) | B(8) | B(23) | B(22) | B(24) | B(25)},
    /* EAX: AVX-VNNI 4, AVX512-BF16 5, AMX-FP16 21, AVX-IFMA 23;
       EDX: AVX-VNNI-INT8 4, AVX-NE-CONVERT 5, AMX-COMPLEX 8, AVX-VNNI-INT16 10, AVX10 19 */
    .sub1 = {B(4) | B(5) | B(21) | B(23), 0, 0, B(4) | B(5) | B(8) | B(10) | B(19)},
};
#undef B

static const struct hidden* g_hide;
static struct sigaction g_next; /* the program's own SIGSEGV handler, if any */
static int g_installed;

typedef int (*sigaction_fn)(int, const struct sigaction*, struct sigaction*);

static sigaction_fn real_sigaction(void) {
  static sigaction_fn fn;
  if (!fn) fn = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  return fn;
}

static long set_cpuid_faulting(int on) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1); }

static void die(const char* why) {
  static const char prefix[] = "isa_mask: ";
  if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, why, strlen(why)) < 0) {
  }
  _exit(97);
}

static void mask(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  if (leaf == 0x24 && g_hide == &kAvx512AndUp) { /* AVX10's own leaf: report none */
    r[0] = r[1] = r[2] = r[3] = 0;
    return;
  }
  if (leaf != 7 || sub > 1) return;
  const uint32_t* h = sub == 0 ? g_hide->sub0 : g_hide->sub1;
  for (int i = 0; i < 4; ++i) r[i] &= ~h[i];
}

static void on_segv(int sig, siginfo_t* info, void* context) {
  ucontext_t* uc = (ucontext_t*)context;
  greg_t* g = uc->uc_mcontext.gregs;
  const unsigned char* ip = (const unsigned char*)g[REG_RIP];
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0xa2) { /* CPUID */
    uint32_t r[4];
    const uint32_t leaf = (uint32_t)g[REG_RAX], sub = (uint32_t)g[REG_RCX];
    set_cpuid_faulting(0);
    __cpuid_count(leaf, sub, r[kRegA], r[kRegB], r[kRegC], r[kRegD]);
    set_cpuid_faulting(1);
    mask(leaf, sub, r);
    g[REG_RAX] = r[kRegA];
    g[REG_RBX] = r[kRegB];
    g[REG_RCX] = r[kRegC];
    g[REG_RDX] = r[kRegD];
    g[REG_RIP] += 2;
    return;
  }
  /* A real fault: the program's handler, else the default action on return. */
  if ((g_next.sa_flags & SA_SIGINFO) && g_next.sa_sigaction) {
    g_next.sa_sigaction(sig, info, context);
  } else if (!(g_next.sa_flags & SA_SIGINFO) && g_next.sa_handler != SIG_DFL &&
             g_next.sa_handler != SIG_IGN) {
    g_next.sa_handler(sig);
  } else {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction()(SIGSEGV, &dfl, NULL);
  }
}

/* The program's SIGSEGV handler goes behind ours; every other signal is untouched. */
int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (sig != SIGSEGV || !g_installed) return real_sigaction()(sig, act, old);
  if (old) *old = g_next;
  if (act) g_next = *act;
  return 0;
}

/* signal() too: glibc's calls its internal sigaction, past the one above
 * (GCC's cc1 sets its crash handler this way). */
sighandler_t signal(int sig, sighandler_t handler) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;  /* (sa_sigaction shares its storage) */
}

__attribute__((constructor)) static void isa_mask_init(void) {
  const char* level = getenv("AMXQA_ISA_MASK");
  if (!level) die("AMXQA_ISA_MASK is not set (avx2 or avx512)\n");
  if (strcmp(level, "avx2") == 0) {
    g_hide = &kAvx512AndUp;
  } else if (strcmp(level, "avx512") == 0) {
    g_hide = &kAmx;
  } else {
    die("AMXQA_ISA_MASK must be avx2 or avx512\n");
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (real_sigaction()(SIGSEGV, &sa, &g_next) != 0) die("cannot install the SIGSEGV handler\n");
  g_installed = 1;
  if (set_cpuid_faulting(1) != 0) die("this kernel or CPU has no CPUID faulting (cpuid_fault)\n");
}
