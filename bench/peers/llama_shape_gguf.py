#!/usr/bin/env python3
"""Writes a GGUF file (llama architecture, Q8_0 or F32 weights, random values)
with the default model's shape, for timing llama.cpp on the same work per token
as libamxqa: d 256, 6 layers, 4 query heads and 2 KV heads of 32, FFN 640,
vocabulary 8,192, tied output. llama's FFN is SwiGLU (three matrices where the
default model's ReLU² MLP has two), so llama.cpp does about 1.4x the weight
work per token here; --ffn sets another width (e.g. 427 ≈ the same FLOPs).

  python3 bench/peers/llama_shape_gguf.py --out /tmp/shape-q8_0.gguf [--type q8_0|f32]
  taskset -c 1 llama-bench -m /tmp/shape-q8_0.gguf -t 1 -p 208 -n 5 -r 10

Standard library only (no numpy): GGUF v3 written field by field."""
import argparse
import os
import random
import struct

GGUF_TYPE = {"u32": 4, "i32": 5, "f32": 6, "bool": 7, "str": 8, "arr": 9}
GGML_F32, GGML_Q8_0 = 0, 8
ALIGN = 32


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, kind, value):
    out = s(key) + struct.pack("<I", GGUF_TYPE[kind])
    if kind == "u32":
        return out + struct.pack("<I", value)
    if kind == "f32":
        return out + struct.pack("<f", value)
    if kind == "str":
        return out + s(value)
    raise ValueError(kind)


def kv_array(key, elem, values):
    out = s(key) + struct.pack("<IIQ", GGUF_TYPE["arr"], GGUF_TYPE[elem], len(values))
    if elem == "str":
        return out + b"".join(s(v) for v in values)
    fmt = {"f32": "<f", "i32": "<i"}[elem]
    return out + b"".join(struct.pack(fmt, v) for v in values)


def q8_0(n_values, rng):
    """n_values random Q8_0 weights: blocks of 32 int8 with one fp16 scale."""
    scale = struct.pack("<e", 0.02)
    blocks = []
    for _ in range(n_values // 32):
        blocks.append(scale + bytes(rng.getrandbits(8) for _ in range(32)))
    return b"".join(blocks)


def f32(n_values, rng, const=None):
    if const is not None:
        return struct.pack("<f", const) * n_values
    return b"".join(struct.pack("<f", rng.uniform(-0.05, 0.05)) for _ in range(n_values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--type", choices=["q8_0", "f32"], default="q8_0")
    ap.add_argument("--ffn", type=int, default=640)
    a = ap.parse_args()
    d, layers, heads, kv_heads, hd, vocab = 256, 6, 4, 2, 32, 8192
    rng = random.Random(1)
    mat_type = GGML_Q8_0 if a.type == "q8_0" else GGML_F32

    tensors = []  # (name, dims (ne0 first), ggml type, bytes)

    def matrix(name, ne0, ne1):
        data = q8_0(ne0 * ne1, rng) if mat_type == GGML_Q8_0 else f32(ne0 * ne1, rng)
        tensors.append((name, [ne0, ne1], mat_type, data))

    def norm(name):
        tensors.append((name, [d], GGML_F32, f32(d, rng, 1.0)))

    matrix("token_embd.weight", d, vocab)
    norm("output_norm.weight")
    for i in range(layers):
        p = f"blk.{i}."
        norm(p + "attn_norm.weight")
        matrix(p + "attn_q.weight", d, heads * hd)
        matrix(p + "attn_k.weight", d, kv_heads * hd)
        matrix(p + "attn_v.weight", d, kv_heads * hd)
        matrix(p + "attn_output.weight", heads * hd, d)
        norm(p + "ffn_norm.weight")
        matrix(p + "ffn_gate.weight", d, a.ffn)
        matrix(p + "ffn_up.weight", d, a.ffn)
        matrix(p + "ffn_down.weight", a.ffn, d)

    # A SentencePiece-style vocabulary: unk, bos, eos, the 256 byte tokens, fillers.
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"t{i}" for i in range(len(tokens), vocab)]
    types = [2, 3, 3] + [6] * 256 + [1] * (vocab - 259)
    meta = [
        kv("general.architecture", "str", "llama"),
        kv("general.name", "str", "amxqa-default-shape"),
        kv("llama.context_length", "u32", 2048),
        kv("llama.embedding_length", "u32", d),
        kv("llama.block_count", "u32", layers),
        kv("llama.feed_forward_length", "u32", a.ffn),
        kv("llama.attention.head_count", "u32", heads),
        kv("llama.attention.head_count_kv", "u32", kv_heads),
        kv("llama.attention.key_length", "u32", hd),
        kv("llama.attention.value_length", "u32", hd),
        kv("llama.rope.dimension_count", "u32", hd),
        kv("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
        kv("llama.vocab_size", "u32", vocab),
        kv("tokenizer.ggml.model", "str", "llama"),
        kv_array("tokenizer.ggml.tokens", "str", tokens),
        kv_array("tokenizer.ggml.scores", "f32", [0.0] * vocab),
        kv_array("tokenizer.ggml.token_type", "i32", types),
    ]
    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)) + b"".join(meta)
    infos, offset = [], 0
    for name, dims, typ, data in tensors:
        infos.append(s(name) + struct.pack("<I", len(dims)) +
                     b"".join(struct.pack("<Q", n) for n in dims) + struct.pack("<IQ", typ, offset))
        offset += (len(data) + ALIGN - 1) // ALIGN * ALIGN
    with open(a.out, "wb") as f:
        f.write(header + b"".join(infos))
        f.write(b"\0" * (-f.tell() % ALIGN))
        for _, _, _, data in tensors:
            f.write(data + b"\0" * (-len(data) % ALIGN))
    print(f"wrote {a.out}: {len(tensors)} tensors, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
