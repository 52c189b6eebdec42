"""Drawing of 16-unit icons into PNGs (no imaging library needed): shapes are predicates on (x, y) in 0..16
units, painted in order with 4x4 supersampling. Used by the make_icons.py of the MANA bundles."""
import math, os, struct, zlib

def png(path, w, h, px):
    raw = b''.join(b'\x00' + bytes(c for p in row for c in p) for row in px)
    def chunk(t, d):
        c = struct.pack('>I', len(d)) + t + d
        return c + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) \
        + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, 'wb').write(data)

def render(shapes, size):
    """shapes: list of (inside(x, y) in 0..16 units, rgba). Later shapes paint over earlier ones."""
    s = size / 16.0
    ss = 4
    px = []
    for j in range(size):
        row = []
        for i in range(size):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sj in range(ss):
                for si in range(ss):
                    x = (i + (si + 0.5) / ss) / s
                    y = (j + (sj + 0.5) / ss) / s
                    col = (0, 0, 0, 0)
                    for inside, c in shapes:
                        if inside(x, y):
                            col = c
                    a = col[3] / 255.0
                    acc[0] += col[0] * a; acc[1] += col[1] * a; acc[2] += col[2] * a; acc[3] += a
            n = ss * ss
            a = acc[3] / n
            if a > 0:
                row.append((int(acc[0] / n / a), int(acc[1] / n / a), int(acc[2] / n / a), int(a * 255)))
            else:
                row.append((0, 0, 0, 0))
        px.append(row)
    return px

def rect(x0, y0, x1, y1, r=0.0):
    def f(x, y):
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return False
        cx = min(max(x, x0 + r), x1 - r); cy = min(max(y, y0 + r), y1 - r)
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r + 1e-9
    return f

def circle(cx, cy, r):
    return lambda x, y: (x - cx) ** 2 + (y - cy) ** 2 <= r * r

def ring(cx, cy, r0, r1, a0, a1):
    def f(x, y):
        d = math.hypot(x - cx, y - cy)
        if not (r0 <= d <= r1):
            return False
        a = math.degrees(math.atan2(-(y - cy), x - cx)) % 360
        return (a0 <= a <= a1) if a0 <= a1 else (a >= a0 or a <= a1)
    return f

def poly(pts):
    def f(x, y):
        inside = False
        n = len(pts)
        for k in range(n):
            (xa, ya), (xb, yb) = pts[k], pts[(k + 1) % n]
            if (ya > y) != (yb > y) and x < (xb - xa) * (y - ya) / (yb - ya) + xa:
                inside = not inside
        return inside
    return f

BLUE = (41, 98, 168, 255); DARK = (28, 58, 102, 255); LIGHT = (228, 236, 246, 255)
GREEN = (46, 139, 62, 255); RED = (200, 40, 40, 255); ORANGE = (230, 140, 20, 255)
GREY = (140, 140, 140, 255); WHITE = (255, 255, 255, 255)


def write(here, icons):
    """Each icon at 16x16 and @2x 32x32 under the folder here."""
    for name, shapes in icons.items():
        png(os.path.join(here, name), 16, 16, render(shapes, 16))
        png(os.path.join(here, name.replace('.png', '@2x.png')), 32, 32, render(shapes, 32))
