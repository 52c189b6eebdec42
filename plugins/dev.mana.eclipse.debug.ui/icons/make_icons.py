#!/usr/bin/env python3
"""Draws the debug UI's icons (16x16 and @2x 32x32 PNG) with the drawing of dev.mana.eclipse.ui's icons; run to
regenerate. A rank is a chip with pins (one process of the job); the instruction steps show three machine
instructions, an arrow to the next one (into) or over a call (over); the Disassembly view is a listing with
the pc's row marked; resume/suspend all are two resume/suspend marks over a rank list."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', 'dev.mana.eclipse.ui', 'icons'))
from icondraw import rect, circle, ring, poly, write, BLUE, DARK, LIGHT, GREEN, ORANGE, GREY, WHITE

YELLOW = (240, 190, 40, 255)
lines = [(rect(1, 2, 9, 3.4), GREY), (rect(1, 7.3, 9, 8.7), GREY), (rect(1, 12.6, 9, 14), GREY)]
pins = [(rect(x, 0.5, x + 1.2, 15.5), GREY) for x in (4.4, 7.4, 10.4)] + \
       [(rect(0.5, y, 15.5, y + 1.2), GREY) for y in (4.4, 7.4, 10.4)]
icons = {
    'obj16/rank.png': pins + [(rect(2.5, 2.5, 13.5, 13.5, 1.2), DARK), (rect(3.6, 3.6, 12.4, 12.4, 0.8), BLUE),
                              (circle(8, 8, 2), WHITE)],
    'elcl16/step_instruction_into.png': lines + [(rect(10.6, 1.5, 12.4, 8), DARK),
                                                 (poly([(8.6, 7.5), (14.4, 7.5), (11.5, 11.5)]), DARK),
                                                 (rect(1, 7.3, 9, 8.7), BLUE)],
    'elcl16/step_instruction_over.png': lines + [(ring(9.5, 8.2, 3.6, 5.2, 0, 180), DARK),
                                                 (poly([(12, 8.5), (16, 8.5), (14, 12.5)]), DARK),
                                                 (rect(1, 12.6, 9, 14), BLUE)],
    'elcl16/resume_all.png': [(poly([(1, 2.5), (7.5, 6), (1, 9.5)]), GREEN), (poly([(7, 6.5), (14.5, 10.5), (7, 14.5)]), GREEN),
                              (rect(0.5, 11, 5.5, 12.2), DARK), (rect(0.5, 13.3, 5.5, 14.5), DARK)],
    'elcl16/suspend_all.png': [(rect(1, 2, 3, 9), YELLOW), (rect(4.5, 2, 6.5, 9), YELLOW),
                               (rect(8.5, 7, 10.5, 14), YELLOW), (rect(12, 7, 14, 14), YELLOW),
                               (rect(1, 11, 6, 12.2), DARK), (rect(1, 13.3, 6, 14.5), DARK)],
    'eview16/disassembly.png': [(rect(1, 1, 15, 15, 1), DARK), (rect(2, 2, 14, 14, 0.5), WHITE),
                                (rect(5.5, 3.5, 12.5, 4.7), GREY), (rect(5.5, 7.4, 12.5, 8.6), BLUE),
                                (rect(5.5, 11.3, 12.5, 12.5), GREY),
                                (poly([(2.6, 6.4), (4.8, 8), (2.6, 9.6)]), GREEN)],
}
write(here, icons)
print('wrote', len(icons) * 2, 'icons')
