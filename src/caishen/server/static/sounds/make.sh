#!/bin/sh
# The table's call voices, made here: eSpeak NG's Mandarin voice (cmn) saying each call, cut
# to 0.7 s and made mono 22 kHz Ogg Vorbis with SoX. Debian: apt-get install espeak-ng sox
# libsox-fmt-all. Another voice (a dialect pack) is another folder with the same file names.
set -e
cd "$(dirname "$0")/mandarin"
for pair in chi:吃 peng:碰 gang:杠 hu:胡 hua:花; do
  f=${pair%%:*}; word=${pair#*:}
  espeak-ng -v cmn -s 150 -p 55 -a 180 -w "/tmp/caishen-$f.wav" "$word"
  sox "/tmp/caishen-$f.wav" -r 22050 -c 1 "$f.ogg" trim 0 0.7 norm -1
  rm "/tmp/caishen-$f.wav"
done
