"""Writes npy_fuzzer's checked-in seeds, tests/fuzz/corpus/npy/ (docs/fuzzing.md).

Valid files come from numpy itself (np.save / np.lib.format.write_array), one per
element type the reader supports (runtime/npy.h) and per format version; the
malformed ones are those files cut, padded or with their header rewritten, one
per error the reader reports. Run it with the Python environment that
tools/setup.sh makes (numpy, ml_dtypes):

    .venv/bin/python tests/fuzz/make_npy_corpus.py
"""

import io
import pathlib
import struct

import ml_dtypes
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "npy"


def saved(array, version=None):
    out = io.BytesIO()
    np.lib.format.write_array(out, array, version=version, allow_pickle=False)
    return out.getvalue()


def with_header(header, data=b"", version=1):
    """A file with `header` (a dict literal) as its header, padded as numpy pads."""
    text = header.encode("latin1")
    size = 2 if version == 1 else 4
    pad = -(8 + size + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    length = struct.pack("<H" if size == 2 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text + data


def valid():
    small = np.arange(6).reshape(2, 3)
    files = {}
    for name in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64"]:
        files[f"{name}.npy"] = saved(small.astype(name))
    for name in ["bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3b11fnuz", "int4", "uint4"]:
        files[f"{name}.npy"] = saved(small.astype(getattr(ml_dtypes, name)))
    files["scalar.npy"] = saved(np.array(7, np.int32))
    files["vector.npy"] = saved(np.arange(4, dtype=np.float32))
    files["empty.npy"] = saved(np.zeros((0, 3), np.int16))
    files["version2.npy"] = saved(small.astype(np.int32), version=(2, 0))
    files["version3.npy"] = saved(small.astype(np.uint8), version=(3, 0))
    files["fortran_row.npy"] = saved(np.asfortranarray(np.arange(4, dtype=np.int32).reshape(1, 4)))
    files["bfloat16_descr.npy"] = with_header("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }",
                                              b"\x80\x3f\x00\x40")
    files["python2_long.npy"] = with_header('{"shape": (2L, 1L), "fortran_order": False, "descr": "<i2"}',
                                            b"\x01\x00\x02\x00")
    return files


def malformed():
    good = saved(np.arange(6, dtype=np.int32).reshape(2, 3))
    return {
        "bad_magic.npy": b"\x93NUMPZ" + good[6:],
        "bad_version.npy": good[:6] + b"\x04\x00" + good[8:],
        "truncated_preamble.npy": good[:9],
        "truncated_header.npy": good[:40],
        "truncated_data.npy": good[:-1],
        "trailing_data.npy": good + b"\x00",
        "huge_header_length.npy": b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{",
        "not_a_dict.npy": with_header("['descr', '<i4']"),
        "missing_shape.npy": with_header("{'descr': '<i4', 'fortran_order': False}"),
        "negative_dim.npy": with_header("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }"),
        "huge_shape.npy": with_header("{'descr': '<i4', 'fortran_order': False, "
                                      "'shape': (4294967296, 4294967296), }"),
        "deep_descr.npy": with_header("{'descr': " + "[" * 500 + "]" * 500 + ", 'fortran_order': False, "
                                      "'shape': (), }"),
        "fortran_order.npy": saved(np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))),
        "big_endian.npy": saved(np.arange(3, dtype=">i4")),
        "complex.npy": saved(np.arange(2, dtype=np.complex64)),
        "structured.npy": saved(np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")])),
        "unicode.npy": saved(np.array(["ab", "c"])),
    }


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in {**valid(), **malformed()}.items():
        (OUT / name).write_bytes(data)


if __name__ == "__main__":
    main()
