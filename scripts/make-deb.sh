#!/usr/bin/env bash
# make deb: dist/reader-snapshot_VERSION-REVISION_ARCH.deb from the release build, laid out as
# Debian lays a package out, its Depends computed by dpkg-shlibdeps. The release build, the manual
# page and the completions are made by the Makefile first (.build/release, .build/share).
# How a release is made, and the same for arm64: docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The version is written in one place, the tool's own (Sources/Support/ToolVersion.swift).
version=$(sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/Support/ToolVersion.swift)
[ -n "$version" ] || { echo "make-deb: no version in Sources/Support/ToolVersion.swift" >&2; exit 1; }
revision=${DEB_REVISION:-1}
arch=$(dpkg --print-architecture)
# Every file's date, the changelog's included, is the last commit's: the same source gives the same package.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

binary=.build/release/reader-snapshot
share=.build/share
for needed in "$binary" "$share/man/man1/reader-snapshot.1" "$share/bash-completion/completions/reader-snapshot"; do
    [ -e "$needed" ] || { echo "make-deb: $needed is missing (run 'make deb', which makes it)" >&2; exit 1; }
done
# The package is for machines without Swift: the standard library and Foundation must be inside the binary.
if ldd "$binary" | grep -Eq 'libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime'; then
    echo "make-deb: $binary links Swift's shared libraries; build it with --static-swift-stdlib" >&2
    ldd "$binary" >&2
    exit 1
fi

work=.build/deb
root=$work/root
rm -rf "$work"
mkdir -p "$root/DEBIAN" "$work/debian"
doc=$root/usr/share/doc/reader-snapshot

# The program and its resource bundles: it finds them beside its own (resolved) path. The bundles
# are data, so they live under /usr/share, linked from beside the program.
install -d "$root/usr/bin" "$root/usr/lib/reader-snapshot" "$root/usr/share/reader-snapshot"
# strip as Debian's dh_strip does: the debug information is most of a release build's size.
install -m 755 "$binary" "$root/usr/lib/reader-snapshot/reader-snapshot"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/lib/reader-snapshot/reader-snapshot"
ln -s ../lib/reader-snapshot/reader-snapshot "$root/usr/bin/reader-snapshot"
# Only the tool's own bundles: a release build also builds the tests' (TestSupport), which never ship.
for name in reader-snapshot_DefaultTemplates.resources reader-snapshot_SampleServer.resources; do
    [ -d ".build/release/$name" ] || { echo "make-deb: .build/release/$name is missing" >&2; exit 1; }
    cp -R ".build/release/$name" "$root/usr/share/reader-snapshot/$name"
    ln -s "../../share/reader-snapshot/$name" "$root/usr/lib/reader-snapshot/$name"
done

# The manual page, the completions where Debian's shells look for them.
install -d "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
gzip -9n <"$share/man/man1/reader-snapshot.1" >"$root/usr/share/man/man1/reader-snapshot.1.gz"
# A completion is sourced, not run: argument-parser's first line, a #! line, is left out.
sed '1{/^#!/d}' "$share/bash-completion/completions/reader-snapshot" >"$root/usr/share/bash-completion/completions/reader-snapshot"
install -m 644 "$share/zsh/site-functions/_reader-snapshot" "$root/usr/share/zsh/vendor-completions/"
install -m 644 "$share/fish/vendor_completions.d/reader-snapshot.fish" "$root/usr/share/fish/vendor_completions.d/"

# The services: per user, and one instance per library for the machine. Debian 12's systemd reads
# the machine's units from /lib/systemd/system (lintian asks for it there).
install -d "$root/usr/lib/systemd/user" "$root/lib/systemd/system" "$root/etc/reader-snapshot"
install -m 644 packaging/systemd/user/reader-snapshot.service packaging/systemd/user/reader-snapshot.timer "$root/usr/lib/systemd/user/"
install -m 644 packaging/systemd/system/reader-snapshot@.service packaging/systemd/system/reader-snapshot@.timer "$root/lib/systemd/system/"

# Documentation: the copyright in the machine-readable format, both changelogs, an example setting.
install -d "$doc/examples" "$root/usr/share/lintian/overrides"
install -m 644 packaging/debian/copyright "$doc/copyright"
install -m 644 packaging/reader-snapshot.conf.example "$doc/examples/library.conf"
gzip -9n <CHANGELOG.md >"$doc/changelog.gz"
gzip -9n <README.md >"$doc/README.md.gz"
install -m 644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/reader-snapshot"
date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
maintainer=$(sed -n 's/^Maintainer: //p' packaging/debian/control)
cat >"$work/debian/changelog" <<CHANGES
reader-snapshot ($version-$revision) stable; urgency=medium

  * Release $version, packaged from its source with Swift's static standard
    library; what changed is in /usr/share/doc/reader-snapshot/changelog.gz.

 -- $maintainer  $date
CHANGES
gzip -9n <"$work/debian/changelog" >"$doc/changelog.Debian.gz"

# Depends: what the binary links (dpkg-shlibdeps reads it), and what it opens with dlopen, which
# dpkg-shlibdeps cannot see: libvips for the covers' thumbnails and ICU for the pages' languages.
# A stand-in linked with exactly those two, never shipped, lets dpkg-shlibdeps name their
# packages and versions from the machine's own libraries.
cat >"$work/dlopened.c" <<'C'
int main(void) { return 0; }
C
# The headers the build used name the same libraries (libvips.so.42 and libicui18n.so.72 on Debian 12).
cc -o "$work/dlopened" "$work/dlopened.c" -Wl,--no-as-needed -lvips -licui18n
cp packaging/debian/control "$work/debian/control"
(cd "$work" && dpkg-shlibdeps -Tdebian/substvars -e root/usr/lib/reader-snapshot/reader-snapshot -e dlopened 2>&1 \
    | grep -v "binaries to analyze should already be installed\|if dlopened was not linked" >&2 || true)
grep -q '^shlibs:Depends=.*libvips' "$work/debian/substvars" || { echo "make-deb: dpkg-shlibdeps found no libvips" >&2; exit 1; }

# The maintainer scripts: systemd reads the units again after an install, an upgrade or a removal.
install -m 755 packaging/debian/postinst packaging/debian/postrm "$root/DEBIAN/"

# md5sums, as dh_md5sums writes them, then the control file.
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | LC_ALL=C sort | xargs md5sum >DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/md5sums"
(cd "$work" && dpkg-gencontrol -preader-snapshot -Proot -Tdebian/substvars -v"$version-$revision" -DArchitecture="$arch")
chmod 644 "$root/DEBIAN/control"
find "$root" -type d -exec chmod 755 {} +

mkdir -p dist
deb="dist/reader-snapshot_${version}-${revision}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb: $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Depends Recommends Installed-Size | sed 's/^/  /'
