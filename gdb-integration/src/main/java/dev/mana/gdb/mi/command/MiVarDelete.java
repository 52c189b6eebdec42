package dev.mana.gdb.mi.command;

/** {@code -var-delete VAROBJ} (and its children); the name bare, quoted only where it is not one word. */
public final class MiVarDelete extends MiPlainCommand {
    private final String varobj;

    public MiVarDelete(String varobj) {
        this.varobj = varobj;
    }

    @Override
    public String line() {
        return new MiLine("-var-delete").add(MiArgs.word(varobj)).toString();
    }
}
