"""bench/peers/run_peers.py: which peer runs one command makes on each kind
of CPU (the masks only where the CPU has more than the level they stand in
for). Run: PYTHONPATH=bench/peers python3 -m unittest discover -s tests/bench"""
import types
import unittest

import run_peers

AVX2 = {"avx2", "fma"}
AVX512 = AVX2 | {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni"}
AMX = AVX512 | {"amx_tile", "amx_int8", "amx_bf16"}


def args(**kw):
    base = dict(bench_json="cpu.json", core=0, amxqa_bench="amxqa-bench", rounds=5,
                ort_node="ort", llama_bench="llama", llama_bench_avx2="llama-avx2")
    base.update(kw)
    return types.SimpleNamespace(**base)


def summary(cmds):
    """(script, --isa-mask or None, llama-bench or None) per command."""
    out = []
    for c in cmds:
        script = c[1].rsplit("/", 1)[-1]
        mask = c[c.index("--isa-mask") + 1] if "--isa-mask" in c else None
        llama = c[c.index("--llama-bench") + 1] if "--llama-bench" in c else None
        assert c[c.index("--bench-json") + 1] == "cpu.json" and "--amxqa-bench" in c, c
        out.append((script, mask, llama))
    return out


class RunPeers(unittest.TestCase):
    def test_avx2_only_cpu_runs_no_mask(self):
        self.assertEqual(summary(run_peers.commands(args(), AVX2)),
                         [("ort_bert.py", None, None), ("llama_bench.py", None, "llama")])

    def test_avx512_cpu_adds_the_avx2_rows(self):
        self.assertEqual(summary(run_peers.commands(args(), AVX512)),
                         [("ort_bert.py", None, None), ("ort_bert.py", "avx2", None),
                          ("llama_bench.py", None, "llama"), ("llama_bench.py", "avx2", "llama-avx2")])

    def test_amx_cpu_adds_the_avx512_rows(self):
        self.assertEqual(summary(run_peers.commands(args(), AMX)),
                         [("ort_bert.py", None, None), ("ort_bert.py", "avx2", None),
                          ("ort_bert.py", "avx512", None), ("llama_bench.py", None, "llama"),
                          ("llama_bench.py", "avx2", "llama-avx2")])

    def test_missing_peers_are_left_out(self):
        self.assertEqual(summary(run_peers.commands(args(ort_node=None, llama_bench_avx2=None), AMX)),
                         [("llama_bench.py", None, "llama")])
        self.assertEqual(summary(run_peers.commands(args(llama_bench=None, llama_bench_avx2=None), AVX2)),
                         [("ort_bert.py", None, None)])

    def test_dry_run_prints_and_needs_a_peer(self):
        with self.assertRaises(SystemExit):
            run_peers.main(["--bench-json", "cpu.json"])
        self.assertEqual(run_peers.main(["--bench-json", "cpu.json", "--llama-bench", "x", "--dry-run"]), 0)


if __name__ == "__main__":
    unittest.main()
