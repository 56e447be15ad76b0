#!/usr/bin/python3
"""Stores PNG screenshots in fewer bytes, so that the README's pictures stay small in the repository
(scripts/screenshots). Reads 8-bit RGB or RGBA PNGs (what `attnlab gui --screenshot` writes) and
writes the same pixels as RGB, each row under the PNG filter the usual heuristic picks (the smallest
sum of absolute filtered bytes), with zlib at level 9: lossless, and read back to check. With
--half, first halves the width and height, each pixel the mean of a 2 × 2 block (the strip of
small pictures under the README's first one).

Usage: png_shrink.py [--half] FILE.png...   (rewrites each file in place; run with /usr/bin/python3)
"""
import struct
import sys
import zlib

import numpy as np


def chunks(data):
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        yield data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length


def paeth(a, b, c):
    p = a.astype(np.int16) + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c)).astype(np.uint8)


def read_png(path):
    """The image as an (height, width, channels) uint8 array (channels 3 or 4)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    idat = b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path}: only 8-bit RGB or RGBA PNGs without interlacing are read here")
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * bpp)
    out = np.zeros((height, width * bpp), np.uint8)
    prev = np.zeros(width * bpp, np.uint8)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].copy()
        if kind == 1:      # Sub: a running sum along each channel
            line = np.cumsum(line.reshape(width, bpp).astype(np.uint32), axis=0).astype(np.uint8).reshape(-1)
        elif kind == 2:    # Up
            line = line + prev
        elif kind in (3, 4):  # Average and Paeth depend on the pixel just decoded: pixel by pixel
            for x in range(0, width * bpp, bpp):
                left = line[x - bpp:x] if x else np.zeros(bpp, np.uint8)
                up, upleft = prev[x:x + bpp], prev[x - bpp:x] if x else np.zeros(bpp, np.uint8)
                if kind == 3:
                    line[x:x + bpp] += ((left.astype(np.uint16) + up) // 2).astype(np.uint8)
                else:
                    line[x:x + bpp] += paeth(left, up, upleft)
        out[y] = line
        prev = line
    return out.reshape(height, width, bpp)


def filtered_rows(rows, bpp):
    """Each row under the five PNG filters; per row, the one with the smallest sum of |signed bytes|."""
    height = rows.shape[0]
    prev = np.vstack([np.zeros((1, rows.shape[1]), np.uint8), rows[:-1]])
    left = np.hstack([np.zeros((height, bpp), np.uint8), rows[:, :-bpp]])
    upleft = np.hstack([np.zeros((height, bpp), np.uint8), prev[:, :-bpp]])
    candidates = [rows, rows - left, rows - prev,
                  rows - ((left.astype(np.uint16) + prev) // 2).astype(np.uint8), rows - paeth(left, prev, upleft)]
    cost = np.stack([np.abs(c.view(np.int8).astype(np.int32)).sum(axis=1) for c in candidates])
    best = cost.argmin(axis=0)
    out = np.empty((height, 1 + rows.shape[1]), np.uint8)
    for y in range(height):
        out[y, 0] = best[y]
        out[y, 1:] = candidates[best[y]][y]
    return out.tobytes()


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bytes(pixels):
    """An RGB (height, width, 3) uint8 array as PNG file contents."""
    height, width, _ = pixels.shape
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = zlib.compress(filtered_rows(pixels.reshape(height, -1), 3), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def halved(pixels):
    """Half the width and height: each pixel the rounded mean of a 2 × 2 block (an odd last row or
    column is dropped)."""
    h, w = pixels.shape[0] // 2 * 2, pixels.shape[1] // 2 * 2
    blocks = pixels[:h, :w].astype(np.uint16).reshape(h // 2, 2, w // 2, 2, pixels.shape[2])
    return ((blocks.sum(axis=(1, 3)) + 2) // 4).astype(np.uint8)


def main():
    half = "--half" in sys.argv[1:]
    for path in [a for a in sys.argv[1:] if a != "--half"]:
        before = len(open(path, "rb").read())
        pixels = read_png(path)
        if pixels.shape[2] == 4:
            if not (pixels[:, :, 3] == 255).all():
                raise ValueError(f"{path}: has transparent pixels, which this tool would drop")
            pixels = pixels[:, :, :3]
        if half:
            pixels = halved(pixels)
        data = png_bytes(pixels)
        with open(path, "wb") as f:
            f.write(data)
        if not np.array_equal(read_png(path), pixels):
            raise RuntimeError(f"{path}: the written pixels differ from the ones read")
        print(f"{path}: {pixels.shape[1]}×{pixels.shape[0]}, {before} → {len(data)} bytes")


if __name__ == "__main__":
    main()
