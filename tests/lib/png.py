"""png.py - the pixels of a PNG file, with nothing but the standard
library: what the picture tests (tests/cli_plot.sh, tests/vm_compare.sh)
look at in rsvg-convert's rendering of an SVG.

    img = png.read(path)        img.width, img.height
    img.pixel(x, y)             (r, g, b, a), 0-255

8-bit greyscale, RGB, grey + alpha and RGBA, not interlaced: what
rsvg-convert writes.  Anything else raises ValueError.
"""
import struct
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


class Image:
    def __init__(self, width, height, channels, rows):
        self.width, self.height = width, height
        self.channels, self.rows = channels, rows

    def pixel(self, x, y):
        """(r, g, b, a) of the pixel at column x, row y."""
        row, c = self.rows[y], self.channels
        p = row[x * c:(x + 1) * c]
        if c == 1:
            return (p[0], p[0], p[0], 255)
        if c == 2:
            return (p[0], p[0], p[0], p[1])
        if c == 3:
            return (p[0], p[1], p[2], 255)
        return tuple(p)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(data, width, height, bpp):
    stride = width * bpp
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = data[at], bytearray(data[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                line[i] = (line[i] + _paeth(left, up, corner)) & 255
            elif kind != 0:
                raise ValueError("filter type %d" % kind)
        rows.append(bytes(line))
        prev = line
    return rows


def read(path):
    blob = open(path, "rb").read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG file" % path)
    at, idat, head = 8, b"", None
    while at < len(blob):
        length, kind = struct.unpack(">I4s", blob[at:at + 8])
        body = blob[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError("%s: depth %d colour %d interlace %d" % (path, depth, colour, interlace))
    c = CHANNELS[colour]
    return Image(width, height, c, _unfilter(zlib.decompress(idat), width, height, c))
