#!/usr/bin/python3
"""scripts/deb-src-list (scripts/web's private deb-src list, issue 36) on fake machines: sample
/etc/apt/sources.list files in the one-line format and deb822 files in sources.list.d/, checked
for what is kept (this release's suites with main, deb turned into deb-src, options carried) and
what is left out (backports, other suites, disabled entries and files apt does not read, cdrom), and
the output read back by apt itself (`apt-get indextargets`, as scripts/web hands it to apt). With no
Debian source, exit 1 and one sentence saying what to add.

Usage: deb_src_list_test.py SCRIPT WORK_DIR   (run with /usr/bin/python3)
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from checks import check, finish  # noqa: E402

SCRIPT, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def machine(name, files, codename="bookworm"):
    """A fake root holding FILES ({path under etc/apt: text}) and an os-release naming CODENAME."""
    root = os.path.join(WORK, name)
    os.makedirs(os.path.join(root, "etc/apt/sources.list.d"))
    with open(os.path.join(root, "etc/os-release"), "w") as f:
        f.write('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'
                + (f"VERSION_CODENAME={codename}\n" if codename else ""))
    for path, text in files.items():
        with open(os.path.join(root, "etc/apt", path), "w") as f:
            f.write(text)
    return root


def stanzas(text):
    """deb822 text as a list of {field: value} (continuation lines joined with newlines)."""
    out = []
    for block in text.strip().split("\n\n"):
        fields, key = {}, None
        for line in block.splitlines():
            if line[:1] in (" ", "\t"):
                fields[key] += "\n" + line
            else:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        out.append(fields)
    return out


def derive(root):
    p = subprocess.run([SCRIPT, root], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def apt_targets(text, name):
    """The Sources indexes apt would fetch for TEXT, read as scripts/web has apt read it."""
    state = os.path.join(WORK, name + "-apt")
    os.makedirs(os.path.join(state, "lists/partial"))
    path = os.path.join(state, "debian-src.sources")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run(["apt-get", "-o", f"Dir::Etc::SourceList={path}", "-o", "Dir::Etc::SourceParts=/dev/null",
                        "-o", f"Dir::State::Lists={state}/lists", "indextargets", "--no-release-info",
                        "--format", "$(TARGET_OF) $(URI)"], capture_output=True, text=True, timeout=60)
    return p.returncode, sorted(p.stdout.split("\n")) if p.stdout else [], p.stderr


def sources_url(uri, suite):
    return f"deb-src {uri}/dists/{suite}/main/source/Sources"


DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def test_deb822_like_a_cloud_image():
    """Debian 12's own debian.sources (comments inside stanzas), plus third-party sources."""
    root = machine("deb822", {
        "sources.list.d/debian.sources":
            "Types: deb\n# http://snapshot.debian.org/archive/debian/20250520T000000Z\n"
            "URIs: http://mirror.school.example.org/debian\nSuites: bookworm bookworm-updates\n"
            f"Components: main\nSigned-By: {DEBIAN_KEYRING}\n\n"
            "Types: deb\nURIs: http://mirror.school.example.org/debian-security\nSuites: bookworm-security\n"
            f"Components: main\nArchitectures: amd64\nSigned-By: {DEBIAN_KEYRING}\n",
        "sources.list.d/nodesource.sources":
            "Types: deb\nURIs: https://nodes.example.org/node_20.x\nSuites: nodistro\nComponents: main\n",
        "sources.list.d/cloud.list": "deb https://packages.example.org/apt cloud-sdk-bookworm main\n",
        "sources.list.d/old.list.disabled": "deb http://disabled.example.org/debian bookworm main\n",
    })
    code, out, err = derive(root)
    check(code == 0, "deb822: a machine with Debian sources derives a list", err)
    got = stanzas(out)
    check([s.get("URIs") for s in got] == ["http://mirror.school.example.org/debian",
                                            "http://mirror.school.example.org/debian-security"],
          "deb822: the machine's own mirror, for the release and its security suite", out)
    check(all(s.get("Types") == "deb-src" and s.get("Components") == "main" for s in got),
          "deb822: every stanza is deb-src, main only", out)
    check(got and got[0].get("Suites") == "bookworm bookworm-updates", "deb822: both suites of a stanza are kept", out)
    check(all(s.get("Signed-By") == DEBIAN_KEYRING for s in got), "deb822: Signed-By is carried over", out)
    check("Architectures" not in out, "deb822: Architectures is left out (sources have none)", out)
    for host in ("nodes.example.org", "packages.example.org", "disabled.example.org"):
        check(host not in out, f"deb822: {host} (another suite, or a file apt does not read) is left out", out)
    code, targets, err = apt_targets(out, "deb822")
    want = sorted(sources_url(u, s) for u, s in (("http://mirror.school.example.org/debian", "bookworm"),
                                                  ("http://mirror.school.example.org/debian", "bookworm-updates"),
                                                  ("http://mirror.school.example.org/debian-security", "bookworm-security")))
    check(code == 0 and [t for t in targets if t] == want, "deb822: apt reads the list and would fetch those Sources",
          f"{targets} {err}")


def test_one_line_sources_list():
    """A classic /etc/apt/sources.list: a school mirror, a proxy with options, entries to leave out."""
    root = machine("one-line", {"sources.list": "\n".join([
        "# the school's mirror",
        "deb http://mirror.school.example.org/debian/ bookworm main contrib non-free-firmware",
        "deb-src http://mirror.school.example.org/debian bookworm main   # the same one again",
        f"deb [ arch=amd64 signed-by={DEBIAN_KEYRING} check-valid-until=no ] "
        "http://proxy.school.example.org:3142/debian bookworm-updates main",
        "deb http://security.example.org/debian-security bookworm-security main",
        "deb http://mirror.school.example.org/debian bookworm-backports main",
        "deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 with firmware]/ bookworm main",
        "deb http://contrib-only.example.org/debian bookworm contrib",
        "deb http://oldrelease.example.org/debian bullseye main",
        "#deb http://commented.example.org/debian bookworm main", ""])})
    code, out, err = derive(root)
    check(code == 0, "one-line: sources.list alone derives a list", err)
    got = stanzas(out)
    pairs = [(s.get("URIs"), s.get("Suites")) for s in got]
    check(pairs == [("http://mirror.school.example.org/debian", "bookworm"),
                    ("http://proxy.school.example.org:3142/debian", "bookworm-updates"),
                    ("http://security.example.org/debian-security", "bookworm-security")],
          "one-line: the mirror once (its deb-src line and trailing slash are the same source), the proxy, security",
          out)
    proxy = got[1] if len(got) > 1 else {}
    check(proxy.get("Signed-By") == DEBIAN_KEYRING and proxy.get("Check-Valid-Until") == "no",
          "one-line: [signed-by=… check-valid-until=no] become deb822 fields", out)
    for word in ("backports", "cdrom", "contrib-only", "bullseye", "commented", "Arch"):
        check(word not in out, f"one-line: `{word}` is left out", out)
    code, targets, err = apt_targets(out, "one-line")
    check(code == 0 and len([t for t in targets if t]) == 3, "one-line: apt reads the derived list", f"{targets} {err}")


def test_deb822_details():
    """Enabled: no, Types with both kinds, several URIs, an inline key block (continuation lines)."""
    key = "Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBGRsvf8BEADB\n -----END PGP PUBLIC KEY BLOCK-----"
    root = machine("details", {
        "sources.list.d/a.sources":
            "Types: deb deb-src\nURIs: http://one.example.org/debian http://two.example.org/debian/\n"
            f"Suites: bookworm\nComponents: main contrib\n{key}\n\n"
            "Enabled: no\nTypes: deb\nURIs: http://off.example.org/debian\nSuites: bookworm\nComponents: main\n",
        "sources.list.d/b.sources": "Types: deb\nURIs: http://three.example.org/debian\nSuites: bookworm\nComponents: main",
    })
    code, out, err = derive(root)
    got = stanzas(out)
    check(code == 0 and [s.get("URIs") for s in got] == ["http://one.example.org/debian", "http://two.example.org/debian",
                                                          "http://three.example.org/debian"],
          "deb822: one stanza per URI; a file ending without a newline still counts", out + err)
    check("off.example.org" not in out, "deb822: Enabled: no is left out", out)
    check(got and got[0].get("Signed-By", "").splitlines() == key.split(":", 1)[1].splitlines(),
          "deb822: an inline key block is carried line for line", out)


def test_no_debian_source():
    """Only a third-party source, or nothing at all: exit 1, one sentence naming what to add."""
    for name, files in (("third-party", {"sources.list.d/node.sources":
                                         "Types: deb\nURIs: https://nodes.example.org/node\nSuites: nodistro\n"
                                         "Components: main\n"}),
                        ("empty", {})):
        code, out, err = derive(machine(name, files))
        sentence = err.strip()
        check(code == 1 and out == "", f"{name}: no Debian source exits 1 and prints no list", f"{code} {out!r}")
        check(len(sentence.splitlines()) == 1 and "bookworm main" in sentence and "/etc/apt/sources.list" in sentence,
              f"{name}: one sentence says what to add, and where", sentence)
        # The mirror is the machine's administrator's to choose: the sentence names no host.
        check(not re.search(r"\w+://", sentence), f"{name}: the sentence names no mirror's address", sentence)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
test_deb822_like_a_cloud_image()
test_one_line_sources_list()
test_deb822_details()
test_no_debian_source()
finish()
