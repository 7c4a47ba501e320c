#!/usr/bin/python3
"""Writes a GGUF file (llama architecture, random weights) with the default
model's shape, for timing llama.cpp on the same work per token as libamxqa:
d 256, 6 layers, 4 query heads and 2 KV heads of 32, FFN 640, vocabulary
8,192, tied output. llama's FFN is SwiGLU (three matrices where the default
model's ReLU² MLP has two), so llama.cpp does about 1.4x the weight work per
token here; --ffn sets another width (e.g. 416 ≈ the same FLOPs; a multiple
of 32 for the block types).

Weight types (every matrix; the norms stay f32): q4_0 and q8_0 (blocks of 32
values with one fp16 scale: 16 bytes of 4-bit values, or 32 int8), bf16, f16,
f32. bench/peers/llama_bench.py writes these and times them; by hand:

  /usr/bin/python3 bench/peers/llama_shape_gguf.py --out /tmp/shape-q8_0.gguf [--type q4_0|q8_0|bf16|f16|f32]
  taskset -c 1 llama-bench -m /tmp/shape-q8_0.gguf -t 1 -p 208 -n 5 -r 10

Standard library only (no numpy): GGUF v3 written field by field."""
import argparse
import os
import random
import struct

GGUF_TYPE = {"u32": 4, "i32": 5, "f32": 6, "bool": 7, "str": 8, "arr": 9}
# ggml_type ids (ggml.h) of the weight types this writer can make.
GGML_TYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8, "bf16": 30}
BLOCK_TYPES = ("q4_0", "q8_0")
ALIGN = 32


class Shape:
    """The llama-architecture shape; the defaults are the default model's."""

    def __init__(self, d=256, layers=6, heads=4, kv_heads=2, head_dim=32, ffn=640, vocab=8192):
        self.d, self.layers, self.heads, self.kv_heads = d, layers, heads, kv_heads
        self.head_dim, self.ffn, self.vocab = head_dim, ffn, vocab


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


def blocks(n_values, rng, quant_bytes):
    """n_values random block-quantised weights: per 32 values one fp16 scale and
    quant_bytes random bytes (q8_0: 32 int8; q4_0: 16 bytes of two 4-bit values)."""
    scale = struct.pack("<e", 0.02)
    q = rng.randbytes(n_values // 32 * quant_bytes)
    return b"".join(scale + q[i:i + quant_bytes] for i in range(0, len(q), quant_bytes))


# Random floats of either sign and magnitude 2^-7 to 2^-5 (about 0.008 to 0.03),
# made from random bytes: the top byte of each little-endian value is mapped
# to the sign bit plus a fixed exponent (and, in f16, two random mantissa
# bits); the rest stays random. Per-value Python arithmetic would take ~20 s.
FLOAT_BYTES = {"f32": (4, 0x3C, 0x00), "bf16": (2, 0x3C, 0x00), "f16": (2, 0x20, 0x07)}


def floats(n_values, rng, wtype):
    width, top, keep = FLOAT_BYTES[wtype]
    out = bytearray(rng.randbytes(n_values * width))
    table = bytes((b & (0x80 | keep)) | top for b in range(256))
    out[width - 1::width] = out[width - 1::width].translate(table)
    return bytes(out)


def weights(n_values, rng, wtype):
    if wtype == "q8_0":
        return blocks(n_values, rng, 32)
    if wtype == "q4_0":
        return blocks(n_values, rng, 16)
    return floats(n_values, rng, wtype)


def write_gguf(path, wtype="q8_0", shape=None, seed=1):
    """Writes the GGUF; returns its size in bytes."""
    sh = shape or Shape()
    if wtype not in GGML_TYPE:
        raise ValueError(f"weight type {wtype}: one of {', '.join(GGML_TYPE)}")
    if wtype in BLOCK_TYPES and (sh.d % 32 or sh.ffn % 32 or sh.heads * sh.head_dim % 32):
        raise ValueError(f"{wtype} needs every matrix row a multiple of 32 values (ffn {sh.ffn})")
    rng = random.Random(seed)
    tensors = []  # (name, dims (ne0 first), ggml type, bytes)

    def matrix(name, ne0, ne1):
        tensors.append((name, [ne0, ne1], GGML_TYPE[wtype], weights(ne0 * ne1, rng, wtype)))

    def norm(name):
        tensors.append((name, [sh.d], GGML_TYPE["f32"], struct.pack("<f", 1.0) * sh.d))

    matrix("token_embd.weight", sh.d, sh.vocab)
    norm("output_norm.weight")
    for i in range(sh.layers):
        p = f"blk.{i}."
        norm(p + "attn_norm.weight")
        matrix(p + "attn_q.weight", sh.d, sh.heads * sh.head_dim)
        matrix(p + "attn_k.weight", sh.d, sh.kv_heads * sh.head_dim)
        matrix(p + "attn_v.weight", sh.d, sh.kv_heads * sh.head_dim)
        matrix(p + "attn_output.weight", sh.heads * sh.head_dim, sh.d)
        norm(p + "ffn_norm.weight")
        matrix(p + "ffn_gate.weight", sh.d, sh.ffn)
        matrix(p + "ffn_up.weight", sh.d, sh.ffn)
        matrix(p + "ffn_down.weight", sh.ffn, sh.d)

    # A SentencePiece-style vocabulary: unk, bos, eos, the 256 byte tokens, fillers.
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"t{i}" for i in range(len(tokens), sh.vocab)]
    types = [2, 3, 3] + [6] * 256 + [1] * (sh.vocab - 259)
    meta = [
        kv("general.architecture", "str", "llama"),
        kv("general.name", "str", "amxqa-default-shape"),
        kv("llama.context_length", "u32", 2048),
        kv("llama.embedding_length", "u32", sh.d),
        kv("llama.block_count", "u32", sh.layers),
        kv("llama.feed_forward_length", "u32", sh.ffn),
        kv("llama.attention.head_count", "u32", sh.heads),
        kv("llama.attention.head_count_kv", "u32", sh.kv_heads),
        kv("llama.attention.key_length", "u32", sh.head_dim),
        kv("llama.attention.value_length", "u32", sh.head_dim),
        kv("llama.rope.dimension_count", "u32", sh.head_dim),
        kv("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
        kv("llama.vocab_size", "u32", sh.vocab),
        kv("tokenizer.ggml.model", "str", "llama"),
        kv_array("tokenizer.ggml.tokens", "str", tokens),
        kv_array("tokenizer.ggml.scores", "f32", [0.0] * sh.vocab),
        kv_array("tokenizer.ggml.token_type", "i32", types),
    ]
    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)) + b"".join(meta)
    infos, offset = [], 0
    for name, dims, typ, data in tensors:
        infos.append(s(name) + struct.pack("<I", len(dims)) +
                     b"".join(struct.pack("<Q", n) for n in dims) + struct.pack("<IQ", typ, offset))
        offset += (len(data) + ALIGN - 1) // ALIGN * ALIGN
    with open(path, "wb") as f:
        f.write(header + b"".join(infos))
        f.write(b"\0" * (-f.tell() % ALIGN))
        for _, _, _, data in tensors:
            f.write(data + b"\0" * (-len(data) % ALIGN))
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--type", choices=list(GGML_TYPE), default="q8_0")
    ap.add_argument("--ffn", type=int, default=640)
    a = ap.parse_args()
    size = write_gguf(a.out, a.type, Shape(ffn=a.ffn))
    print(f"wrote {a.out}: {a.type}, {size} bytes")


if __name__ == "__main__":
    main()
