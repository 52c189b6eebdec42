#!/usr/bin/env python3
"""Draws the plug-in's icons (16x16 and @2x 32x32 PNG) from simple shapes (icondraw.py); run to regenerate.

Each says what it is about, and none looks like Save: a checkpoint is a flag planted on a timeline (a point
of the run to come back to), checkpoint-and-stop the same flag with a stop square, a restart a circular
arrow back to a flag, an image a page of memory bands (upper half blue, lower half orange), the
Checkpoint Directory view a folder with the flag."""
import os
from icondraw import rect, circle, ring, poly, png, render, write, BLUE, DARK, LIGHT, GREEN, RED, ORANGE, GREY, WHITE

YELLOW = (240, 190, 40, 255)
# a flag on a pole standing on a timeline
timeline = [(rect(0.5, 13.2, 15.5, 14.8, 0.6), GREY), (circle(5, 14, 1.6), DARK)]
flag = [(rect(4.2, 2, 5.8, 14), DARK), (poly([(5.8, 2), (14, 4.6), (5.8, 7.6)]), BLUE)]
checkpoint = timeline + flag
icons = {
    'obj16/mana_job.png': [(rect(0.5, 3, 6.5, 9, 1), DARK), (rect(1.5, 4, 5.5, 8, 0.5), BLUE),
                           (rect(9.5, 7, 15.5, 13, 1), DARK), (rect(10.5, 8, 14.5, 12, 0.5), BLUE),
                           (poly([(5, 7.2), (11, 9.2), (11, 10.4), (5, 8.4)]), GREY),
                           (circle(12.5, 4, 2.6), GREEN), (rect(11.9, 2.4, 13.1, 5.6), WHITE),
                           (rect(10.9, 3.4, 14.1, 4.6), WHITE)],
    'etool16/checkpoint.png': checkpoint,
    'etool16/checkpoint_stop.png': timeline[:1] + flag + [(rect(8.5, 8, 15.5, 15, 0.8), WHITE),
                                                          (rect(9.5, 9, 14.5, 14, 0.5), RED)],
    'etool16/restart.png': [(ring(8, 8.5, 4.2, 6.6, 110, 30), GREEN),
                            (poly([(11.2, 0.6), (15.8, 5.6), (9.6, 6.8)]), GREEN),
                            (rect(6.2, 5.2, 7.4, 12), DARK), (poly([(7.4, 5.2), (11, 6.6), (7.4, 8.2)]), BLUE)],
    'obj16/image.png': [(rect(2, 0.5, 14, 15.5, 1), DARK), (rect(3, 1.5, 13, 14.5, 0.5), WHITE),
                        (rect(4, 3, 12, 5), BLUE), (rect(4, 6, 9, 8), BLUE), (rect(4, 9, 12, 11), ORANGE),
                        (rect(4, 12, 7, 13.5), GREY)],
    'eview16/job_view.png': [(rect(1, 1.5, 15, 14.5, 1), DARK), (rect(2, 2.5, 14, 13.5, 0.5), WHITE),
                             (rect(2, 2.5, 14, 5), BLUE),
                             (circle(4.2, 7.4, 1.3), GREEN), (rect(6.5, 6.8, 13, 8), GREY),
                             (circle(4.2, 11, 1.3), ORANGE), (rect(6.5, 10.4, 13, 11.6), GREY)],
    'eview16/checkpoint_dir.png': [(poly([(0.5, 3), (6, 3), (7.5, 4.8), (15.5, 4.8), (15.5, 14), (0.5, 14)]), ORANGE),
                                   (rect(1.5, 6, 14.5, 13, 0.4), YELLOW),
                                   (rect(5.2, 5.5, 6.4, 12.2), DARK), (poly([(6.4, 5.5), (12, 7.4), (6.4, 9.4)]), BLUE)],
    # the Checkpoint Directory view's toolbar (Open is the image icon, Restart from Here the restart icon)
    'elcl16/refresh.png': [(ring(8, 8, 4.2, 6.2, 100, 340), BLUE), (poly([(9, 0.8), (13.6, 2.6), (9.6, 6.2)]), BLUE)],
    'elcl16/verify.png': [(rect(2, 0.5, 12, 15.5, 1), DARK), (rect(3, 1.5, 11, 14.5, 0.5), WHITE),
                          (rect(4, 3, 10, 4.4), GREY), (rect(4, 6, 10, 7.4), GREY),
                          (poly([(6.5, 10.5), (9, 13), (15, 6.5), (15.8, 8), (9, 15.4), (5.2, 11.8)]), GREEN)],
    'elcl16/compare.png': [(rect(0.5, 1, 7.5, 13, 0.8), DARK), (rect(1.4, 1.9, 6.6, 12.1, 0.4), LIGHT),
                           (rect(8.5, 3, 15.5, 15, 0.8), DARK), (rect(9.4, 3.9, 14.6, 14.1, 0.4), LIGHT),
                           (rect(2.4, 4, 5.6, 5.2), BLUE), (rect(10.4, 6, 13.6, 7.2), ORANGE),
                           (rect(2.4, 7, 5.6, 8.2), GREY), (rect(10.4, 9, 13.6, 10.2), GREY)],
    'obj16/rank_running.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), GREEN)],
    'obj16/rank_checkpointing.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), ORANGE)],
    'obj16/rank_restarting.png': [(circle(8, 8, 5.5), DARK), (circle(8, 8, 4.5), BLUE)],
    'obj16/rank_exited.png': [(circle(8, 8, 5.5), GREY), (circle(8, 8, 4.5), LIGHT)],
}
here = os.path.dirname(os.path.abspath(__file__))
write(here, icons)
# banner image of the restart dialog (title area), 64x64 in a 16-unit grid
png(os.path.join(here, 'wizban/restart_wiz.png'), 64, 64, render(icons['etool16/restart.png'], 64))
print('wrote', len(icons) * 2 + 1, 'icons')
