#!/usr/bin/env bash
# Draws the sample library's cover images (committed under Sources/SampleServer/Library/covers).
# Needs ImageMagick (apt-get install imagemagick webp). Run again only to change the covers.
set -euo pipefail
out="$(dirname "$0")/../Sources/SampleServer/Library/covers"
mkdir -p "$out"
draw() { # file background foreground "Title" "Author"
  local file=$1 bg=$2 fg=$3 title=$4 author=$5 tmp
  tmp=$(mktemp --suffix=.png)
  convert -size 200x300 "xc:$bg" \
    \( -size 170x150 -background none -fill "$fg" -font DejaVu-Serif-Bold -gravity center caption:"$title" \) \
    -gravity north -geometry +0+40 -composite \
    \( -size 170x40 -background none -fill "$fg" -font DejaVu-Sans -gravity center caption:"$author" \) \
    -gravity south -geometry +0+30 -composite \
    -stroke "$fg" -strokewidth 3 -fill none -draw "rectangle 8,8 191,291" \
    -strip "$tmp"
  case "$file" in
    *.jpg|*.jpeg|*.bin-jpeg) convert "$tmp" -quality 70 "jpeg:$out/$file" ;;
    *.gif|*.bin-gif) convert "$tmp" -colors 16 "gif:$out/$file" ;;
    *.webp|*.bin-webp) cwebp -quiet -q 60 "$tmp" -o "$out/$file" ;;
    *) convert "$tmp" -colors 32 "png8:$out/$file" ;;
  esac
  rm -f "$tmp"
}
draw pride-and-prejudice.jpg '#7b2d26' '#f6e7c1' 'Pride and Prejudice' 'Jane Austen'
draw moby-dick.png '#12355b' '#e8f1f2' 'Moby-Dick' 'Herman Melville'
draw frankenstein.gif '#2f3e46' '#cad2c5' 'Frankenstein' 'Mary Shelley'
draw dracula.webp '#3d0c11' '#f0e3d0' 'Dracula' 'Bram Stoker'
draw middlemarch.jpg '#4a5d23' '#f4f1de' 'Middlemarch' 'George Eliot'
draw jane-eyre.png '#5e3a6e' '#f2e9f7' 'Jane Eyre' 'Charlotte Brontë'
draw wuthering-heights.jpg '#394a51' '#fdf6e3' 'Wuthering Heights' 'Emily Brontë'
draw great-expectations.webp '#8c5e1e' '#fff8e7' 'Great Expectations' 'Charles Dickens'
draw war-and-peace.gif '#6b1d1d' '#f5e6c8' 'War and Peace' 'Leo Tolstoy'
draw the-odyssey.png '#1d4e6b' '#f9f3dc' 'The Odyssey' 'Homer'
draw don-quixote.jpg '#a0522d' '#fffaf0' 'Don Quixote' 'Miguel de Cervantes'
draw alice.png '#2a6f97' '#fefae0' "Alice's Adventures in Wonderland" 'Lewis Carroll'
draw time-machine.webp '#22223b' '#f2e9e4' 'The Time Machine' 'H. G. Wells'
draw little-women.jpg '#9d4edd' '#fff' 'Little Women' 'Louisa May Alcott'
draw walden.gif '#386641' '#f2e8cf' 'Walden' 'Henry David Thoreau'
draw origin-of-species.png '#6f4e37' '#f5f5dc' 'On the Origin of Species' 'Charles Darwin'
draw metamorphosis.jpg '#1b1b1b' '#e0e0e0' 'Die Verwandlung' 'Franz Kafka'
draw tale-of-genji.webp '#7f1d1d' '#fde68a' 'The Tale of Genji' 'Murasaki Shikibu'
draw scarlet-letter.jpg '#800000' '#ffe4e1' 'The Scarlet Letter' 'Nathaniel Hawthorne'
draw huckleberry-finn.png '#5c4033' '#fdf5e6' 'Adventures of Huckleberry Finn' 'Mark Twain'
draw iliad.jpg '#283618' '#fefae0' 'The Iliad' 'Homer'
draw persuasion.jpg '#2b4162' '#f1ede4' 'Persuasion' 'Jane Austen'
draw dorian-gray.gif '#3b2f2f' '#e9d8a6' 'The Picture of Dorian Gray' 'Oscar Wilde'
# A PNG behind a .jpg name: the format comes from the bytes.
draw sherlock-holmes.jpg.png '#0b3954' '#bfd7ea' 'The Adventures of Sherlock Holmes' 'Arthur Conan Doyle'
mv "$out/sherlock-holmes.jpg.png" "$out/sherlock-holmes.jpg"
ls -la "$out"
