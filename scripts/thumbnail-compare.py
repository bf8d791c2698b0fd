#!/usr/bin/python3
"""Compares two builds' thumbnails of the same covers, size by size.

Usage: scripts/thumbnail-compare.py OLD_DIR NEW_DIR

Each folder holds what `reader-snapshot-dev bench-thumbnails --covers COVERS --keep DIR` wrote, or an
export's `covers/` folder: one file a cover and box, named COVER-BOXWIDTH.jpg (or .png); other
files (an export's covers themselves) are left out. For each box it prints how far the new
thumbnails are from the old ones (the mean absolute difference per channel, in 255ths, and SSIM,
each thumbnail's worst and the mean) and their bytes, against issue 48's bounds: every thumbnail
within 3/255 and at least 0.97, the bytes within 15% in total. It exits 1 when a bound is not met.

It needs Pillow, NumPy and scikit-image (Debian: python3-pil python3-numpy python3-skimage), which
belong to /usr/bin/python3.
"""
import os
import re
import sys
from collections import defaultdict

import numpy
from PIL import Image
from skimage.metrics import structural_similarity

MAD_BOUND = 3.0
SSIM_BOUND = 0.97
BYTES_BOUND = 0.15


def pixels(path):
    with Image.open(path) as image:
        return numpy.asarray(image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB"), dtype=numpy.float64)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    old_dir, new_dir = sys.argv[1], sys.argv[2]
    thumbnail = re.compile(r"-[0-9]+\.(jpg|png)$")
    old_names = {name for name in os.listdir(old_dir) if thumbnail.search(name)}
    new_names = {name for name in os.listdir(new_dir) if thumbnail.search(name)}
    if old_names != new_names:
        missing = sorted(old_names ^ new_names)[:5]
        sys.exit(f"the two folders do not hold the same thumbnails ({len(old_names ^ new_names)} differ, e.g. {missing})")
    boxes = defaultdict(lambda: {"count": 0, "mad": [], "ssim": [], "old": 0, "new": 0, "resized": 0})
    for name in sorted(old_names):
        box = int(name.rsplit("-", 1)[1].split(".")[0])
        row = boxes[box]
        old_path, new_path = os.path.join(old_dir, name), os.path.join(new_dir, name)
        old, new = pixels(old_path), pixels(new_path)
        if old.shape != new.shape:
            # A pixel more or less in one side: compared at the old size, as a page would show it.
            row["resized"] += 1
            with Image.open(new_path) as image:
                new = numpy.asarray(image.convert("RGBA" if old.shape[2] == 4 else "RGB")
                                    .resize((old.shape[1], old.shape[0]), Image.LANCZOS), dtype=numpy.float64)
        mad = float(numpy.abs(old - new).mean(axis=(0, 1)).max())
        ssim = float(structural_similarity(old, new, channel_axis=2, data_range=255))
        row["count"] += 1
        row["mad"].append(mad)
        row["ssim"].append(ssim)
        row["old"] += os.path.getsize(old_path)
        row["new"] += os.path.getsize(new_path)
    met = True
    print(f"{'box':>5} {'thumbnails':>10} {'MAD worst':>9} {'MAD mean':>8} {'SSIM worst':>10} {'SSIM mean':>9} "
          f"{'KB before':>9} {'KB now':>7} {'bytes':>7}  resized")
    old_total = new_total = 0
    for box in sorted(boxes):
        row = boxes[box]
        worst_mad, worst_ssim = max(row["mad"]), min(row["ssim"])
        change = row["new"] / row["old"] - 1
        old_total += row["old"]
        new_total += row["new"]
        ok = worst_mad <= MAD_BOUND and worst_ssim >= SSIM_BOUND
        met = met and ok
        print(f"{box:>5} {row['count']:>10} {worst_mad:>9.2f} {numpy.mean(row['mad']):>8.2f} {worst_ssim:>10.4f} "
              f"{numpy.mean(row['ssim']):>9.4f} {row['old'] / 1024:>9.0f} {row['new'] / 1024:>7.0f} {change:>+7.1%}  "
              f"{row['resized']}{'' if ok else '  over its bound'}")
    change = new_total / old_total - 1
    met = met and abs(change) <= BYTES_BOUND
    print(f"bytes in total: {old_total / 1024:.0f} KB before, {new_total / 1024:.0f} KB now, {change:+.1%} (bound ±15%)")
    print(f"bounds (every thumbnail MAD <= {MAD_BOUND:g}/255 a channel, SSIM >= {SSIM_BOUND:g}; bytes within 15%): "
          f"{'met' if met else 'NOT met'}")
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
