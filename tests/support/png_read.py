"""A small PNG reader for the tests (no imaging library on the test machines): 8-bit RGB and RGBA,
non-interlaced, which is what `attnlab gui --screenshot`, rsvg-convert and tools/png_shrink.py write.
Written apart from tools/png_shrink.py on purpose, so that a test reading that tool's output does not
share its mistakes."""
import struct
import zlib


def read_png(path):
    """(width, height, rows of RGBA tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG file"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            interlace = body[12]
        elif kind == b"IDAT":
            idat += body
    assert depth == 8 and colour in (2, 6) and not interlace, f"{path}: unexpected PNG format"
    bpp = 4 if colour == 6 else 3
    raw, rows, prev, k = zlib.decompress(idat), [], bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[k], bytearray(raw[k + 1:k + 1 + width * bpp])
        k += 1 + width * bpp
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) + ((line[x * bpp + 3],) if bpp == 4 else (255,))
                     for x in range(width)])
        prev = line
    return width, height, rows
