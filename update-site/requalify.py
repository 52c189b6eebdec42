#!/usr/bin/env python3
"""Makes "build N+1" of the update site for the p2 update test: a copy of the p2 repository in which every
dev.mana unit carries one later qualifier, as a second build with -DforceContextQualifier would.

    requalify.py SOURCE_REPOSITORY TARGET_DIRECTORY

Every dev.mana bundle and feature jar is copied with its Bundle-Version (feature.xml: version and the
versions of its plug-in entries) moved to the new qualifier and renamed to match; the p2 metadata
(content.xml, artifacts.xml) gets the same versions, and the changed artifacts get their sizes and
checksums recomputed, so p2 verifies the new jars as it would a real build's. Other jars (Gson) are copied
unchanged. The new qualifier is one hour after the newest dev.mana qualifier (yyyyMMddHHmm, the form
Tycho and bnd write), so it compares higher than every old one.

Why not rebuild: a second Tycho run of the plug-ins, features and site takes minutes; this takes seconds
and exercises exactly what p2 sees of a newer build: higher versions of the same units.
"""
import datetime
import hashlib
import io
import lzma
import os
import re
import shutil
import sys
import zipfile


def read_xml(repo, name):
    """content.xml / artifacts.xml from the .xml, .xml.xz or .jar form Tycho wrote."""
    for path, reader in ((f"{name}.xml", lambda p: open(p, "rb").read()),
                         (f"{name}.xml.xz", lambda p: lzma.open(p).read()),
                         (f"{name}.jar", lambda p: zipfile.ZipFile(p).read(f"{name}.xml"))):
        full = os.path.join(repo, path)
        if os.path.exists(full):
            return reader(full).decode("utf-8")
    sys.exit(f"requalify: no {name}.xml, .xml.xz or .jar in {repo}")


def rewrite_jar(src, dst, replace):
    """Copies a jar entry by entry (modes and compression kept), rewriting the manifest and feature.xml."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename in ("META-INF/MANIFEST.MF", "feature.xml"):
                data = replace(data.decode("utf-8")).encode("utf-8")
            zout.writestr(info, data, compress_type=info.compress_type)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    content = read_xml(src, "content")
    artifacts = read_xml(src, "artifacts")

    # the versions of the dev.mana units (bnd's bundles carry their own time stamps)
    old = {}
    for m in re.finditer(r"<unit id='(dev\.mana[^']*)' version='([^']+)'", content.replace('"', "'")):
        old[m.group(1)] = m.group(2)
    if not old:
        sys.exit(f"requalify: no dev.mana unit in {src}")
    qualifiers = [v.split(".", 3)[3] for v in old.values() if v.count(".") == 3]
    stamps = [q for q in qualifiers if re.fullmatch(r"\d{12}", q)]
    if len(stamps) != len(qualifiers):
        sys.exit("requalify: a dev.mana unit has no yyyyMMddHHmm qualifier: "
                 + ", ".join(f"{i} {v}" for i, v in sorted(old.items())))
    newest = datetime.datetime.strptime(max(stamps), "%Y%m%d%H%M")
    qualifier = (newest + datetime.timedelta(hours=1)).strftime("%Y%m%d%H%M")
    versions = {v: v.rsplit(".", 1)[0] + "." + qualifier for v in set(old.values())}

    def replace(text):
        # whole version strings only ('0.1.0.2026...' inside quotes, ranges, manifest values)
        return re.sub("|".join(re.escape(v) for v in sorted(versions, key=len, reverse=True)),
                      lambda m: versions[m.group(0)], text)

    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "plugins"))
    os.makedirs(os.path.join(dst, "features"))
    changed = {}
    for folder in ("plugins", "features"):
        for name in sorted(os.listdir(os.path.join(src, folder))):
            path = os.path.join(src, folder, name)
            if name.startswith("dev.mana"):
                out = os.path.join(dst, folder, replace(name))
                rewrite_jar(path, out, replace)
                changed[os.path.basename(out)] = out
            else:
                shutil.copy2(path, os.path.join(dst, folder, name))

    content = replace(content)
    artifacts = replace(artifacts)

    # sizes and checksums of the rewritten jars (p2 checks them on download)
    def fix_artifact(m):
        block, ident, version, classifier = m.group(0), m.group(2), m.group(3), m.group(1)
        name = f"{ident}_{version}.jar"
        if name not in changed:
            return block
        data = open(changed[name], "rb").read()
        sums = {"md5": hashlib.md5, "sha-1": hashlib.sha1, "sha-256": hashlib.sha256, "sha-512": hashlib.sha512}

        def prop(pm):
            key = pm.group(1)
            if key in ("artifact.size", "download.size"):
                value = str(len(data))
            elif key.startswith("download.checksum."):
                value = sums[key.rsplit(".", 1)[1]](data).hexdigest()
            elif key == "download.md5":
                value = hashlib.md5(data).hexdigest()
            else:
                return pm.group(0)
            return f"<property name='{key}' value='{value}'/>"
        return re.sub(r"<property name='([^']+)' value='[^']*'/>", prop, block)

    artifacts = re.sub(r"<artifact classifier='([^']+)' id='([^']+)' version='([^']+)'>.*?</artifact>",
                       fix_artifact, artifacts, flags=re.S)
    with open(os.path.join(dst, "content.xml"), "w", encoding="utf-8") as f:
        f.write(content)
    with open(os.path.join(dst, "artifacts.xml"), "w", encoding="utf-8") as f:
        f.write(artifacts)
    for ident, v in sorted(old.items()):
        print(f"requalified: {ident} {v} -> {versions[v]}")


if __name__ == "__main__":
    main()
