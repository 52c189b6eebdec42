#!/usr/bin/env python3
"""Draws the plug-in's icons (16x16 and @2x 32x32 PNG) from simple shapes; run to regenerate."""
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

disk = [(rect(1.5, 1.5, 14.5, 14.5, 1.5), DARK), (rect(2.5, 2.5, 13.5, 13.5, 1), BLUE),
        (rect(4.5, 2.5, 11.5, 6.5), LIGHT), (rect(9, 3.2, 10.5, 5.8), DARK),
        (rect(4, 9, 12, 13.5, 0.5), WHITE)]
icons = {
    'obj16/mana_job.png': [(rect(0.5, 3, 6.5, 9, 1), DARK), (rect(1.5, 4, 5.5, 8, 0.5), BLUE),
                           (rect(9.5, 7, 15.5, 13, 1), DARK), (rect(10.5, 8, 14.5, 12, 0.5), BLUE),
                           (poly([(5, 7.2), (11, 9.2), (11, 10.4), (5, 8.4)]), GREY),
                           (circle(12.5, 4, 2.6), GREEN), (rect(11.9, 2.4, 13.1, 5.6), WHITE),
                           (rect(10.9, 3.4, 14.1, 4.6), WHITE)],
    'etool16/checkpoint.png': disk,
    'etool16/checkpoint_stop.png': disk[:4] + [(rect(4, 9, 9.5, 13.5, 0.5), WHITE),
                                               (rect(9, 8.5, 15.5, 15), WHITE), (rect(10, 9.5, 14.5, 14), RED)],
    'etool16/restart.png': [(ring(8, 8.5, 3.6, 6.2, 120, 20), GREEN),
                            (poly([(10.6, 0.8), (15.6, 5.4), (9.4, 7.2)]), GREEN),
                            (circle(8, 8.5, 1.6), BLUE)],
    'eview16/job_view.png': [(rect(1, 1.5, 15, 14.5, 1), DARK), (rect(2, 2.5, 14, 13.5, 0.5), WHITE),
                             (rect(2, 2.5, 14, 5), BLUE),
                             (circle(4.2, 7.4, 1.3), GREEN), (rect(6.5, 6.8, 13, 8), GREY),
                             (circle(4.2, 11, 1.3), ORANGE), (rect(6.5, 10.4, 13, 11.6), GREY)],
    'obj16/rank_running.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), GREEN)],
    'obj16/rank_checkpointing.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), ORANGE)],
    'obj16/rank_restarting.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), BLUE)],
    'obj16/rank_exited.png': [(circle(8, 8, 5.5), GREY), (circle(8, 8, 4.5), LIGHT)],
}
here = os.path.dirname(os.path.abspath(__file__))
for name, shapes in icons.items():
    png(os.path.join(here, name), 16, 16, render(shapes, 16))
    png(os.path.join(here, name.replace('.png', '@2x.png')), 32, 32, render(shapes, 32))
# banner image of the restart dialog (title area), 64x64 in a 16-unit grid
png(os.path.join(here, 'wizban/restart_wiz.png'), 64, 64, render(icons['etool16/restart.png'], 64))
print('wrote', len(icons) * 2 + 1, 'icons')
