#!/bin/sh
# make man runs swift-argument-parser's generate-manual on this script as if it were the tool
# ($READER_SNAPSHOT_BIN): generate-manual drops every character that is not ASCII ("…", "×",
# "é"), so each one leaves the tool's --experimental-dump-help as @@uXXXX@@, which the Makefile
# then writes as groff's own escape, \[uXXXX], read alike by every man in every locale.
"$READER_SNAPSHOT_BIN" "$@" | perl -CS -pe 's/([^\x00-\x7F])/sprintf("\@\@u%04X\@\@", ord($1))/ge'
