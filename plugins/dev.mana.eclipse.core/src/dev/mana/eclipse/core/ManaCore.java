package dev.mana.eclipse.core;

/** Constants of the MANA launch model (API). */
public final class ManaCore {
    public static final String PLUGIN_ID = "dev.mana.eclipse.core";
    private ManaCore() {}
}
