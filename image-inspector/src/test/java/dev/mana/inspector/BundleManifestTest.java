package dev.mana.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;

/** The jar is an OSGi bundle exporting the API package only (Eclipse consumes it with pomDependencies=consider). */
class BundleManifestTest {
    @Test
    void exportsTheApiPackageOnly() throws Exception {
        Path mf = Path.of("target/classes/META-INF/MANIFEST.MF");
        assertTrue(Files.exists(mf), "bnd-maven-plugin wrote " + mf);
        Attributes a;
        try (InputStream in = Files.newInputStream(mf)) {
            a = new Manifest(in).getMainAttributes();
        }
        assertEquals("dev.mana.image-inspector", a.getValue("Bundle-SymbolicName"));
        assertEquals("2", a.getValue("Bundle-ManifestVersion"));
        String exports = a.getValue("Export-Package");
        assertTrue(exports.startsWith("dev.mana.inspector;"), exports);
        assertTrue(!exports.contains("internal") && !exports.contains(".cli"), exports);
        String imports = a.getValue("Import-Package");
        assertTrue(imports.contains("picocli;resolution:=optional"), imports);
    }
}
