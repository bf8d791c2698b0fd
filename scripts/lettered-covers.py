#!/usr/bin/python3
"""Writes covers with lettering, a frame and a band, for comparing two builds' thumbnails.

Usage: scripts/lettered-covers.py DIR [COUNT, default 70]

The sample server's covers are blurred noise over a gradient, which hides what a resize does to
edges; real covers have titles. These are seven real cover sizes (360 to 1,216 px wide), JPEG
quality 90, the same for the same COUNT. Then, for each build:
`reader-snapshot-dev bench-thumbnails --covers DIR --keep OUT`, and `scripts/thumbnail-compare.py`.

It needs Pillow and Debian's DejaVu fonts (python3-pil, fonts-dejavu-core), for /usr/bin/python3.
"""
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

SIZES = [(360, 540), (400, 600), (500, 750), (600, 900), (800, 1200), (1000, 1500), (1216, 1824)]
FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"]
WORDS = ["THE", "GOLDEN", "ORCHARD", "BROKEN", "BRIDGE", "a novel", "HARBOUR", "KAFKA", "ORWELL", "Mann", "Night", "Winter"]


def colour(rng):
    return tuple(rng.randint(0, 255) for _ in range(3))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2])
    folder, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 70
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(7)
    for index in range(count):
        width, height = SIZES[index % len(SIZES)]
        background = colour(rng)
        ink = tuple(255 - channel for channel in background)
        image = Image.new("RGB", (width, height), background)
        draw = ImageDraw.Draw(image)
        draw.rectangle([width * 0.05, height * 0.05, width * 0.95, height * 0.95], outline=ink, width=max(2, width // 120))
        draw.rectangle([0, int(height * 0.6), width, int(height * 0.75)], fill=colour(rng))
        for line in range(3):
            font = ImageFont.truetype(rng.choice(FONTS), int(width * rng.uniform(0.08, 0.16)))
            draw.text((width * 0.1, height * (0.12 + line * 0.15)), rng.choice(WORDS), font=font, fill=ink)
        font = ImageFont.truetype(FONTS[1], int(width * 0.05))
        author = "by " + rng.choice(WORDS).title() + " " + rng.choice(WORDS).title()
        draw.text((width * 0.1, height * 0.8), author, font=font, fill=(250, 250, 250))
        image.save(os.path.join(folder, f"text-{index}.jpg"), quality=90)
    print(f"{count} covers in {folder}")


if __name__ == "__main__":
    main()
