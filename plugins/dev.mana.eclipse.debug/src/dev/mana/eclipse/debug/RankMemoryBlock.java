package dev.mana.eclipse.debug;

import dev.mana.gdb.mi.Memory;
import dev.mana.gdb.mi.MiException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.debug.core.DebugEvent;
import org.eclipse.debug.core.DebugException;
import org.eclipse.debug.core.model.DebugElement;
import org.eclipse.debug.core.model.IMemoryBlockExtension;
import org.eclipse.debug.core.model.IMemoryBlockRetrieval;
import org.eclipse.debug.core.model.MemoryByte;

/**
 * A Memory view monitor on a rank: memory from an address (an expression's value when it was added), read
 * through gdb as the renderings ask, little endian. Bytes gdb cannot read are shown as such; bytes that
 * differ from the last read of the same address are marked changed. Writable while the rank is suspended.
 */
public final class RankMemoryBlock extends DebugElement implements IMemoryBlockExtension {
    /** What {@link #getBytes()} (the plain memory block interface) returns. */
    static final int DEFAULT_LENGTH = 256;

    private final RankDebugTarget target;
    private final String expression;
    private volatile BigInteger base;
    private final List<Object> connections = new ArrayList<>();
    /** The last value read at each address, for the changed marks. */
    private final Map<Long, Byte> lastRead = new HashMap<>();

    RankMemoryBlock(RankDebugTarget target, String expression, long address) {
        super(target);
        this.target = target;
        this.expression = expression;
        this.base = BigInteger.valueOf(address).and(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));
    }

    @Override
    public String getModelIdentifier() { return ManaDebugModel.ID; }
    @Override
    public String getExpression() { return expression; }
    @Override
    public BigInteger getBigBaseAddress() { return base; }
    @Override
    public BigInteger getMemoryBlockStartAddress() { return null; } // the whole address space
    @Override
    public BigInteger getMemoryBlockEndAddress() { return null; }
    @Override
    public BigInteger getBigLength() { return BigInteger.valueOf(DEFAULT_LENGTH); }
    @Override
    public int getAddressSize() { return 8; }
    @Override
    public int getAddressableSize() { return 1; }
    @Override
    public boolean supportBaseAddressModification() { return true; }
    @Override
    public boolean supportsChangeManagement() { return false; }

    @Override
    public void setBaseAddress(BigInteger address) {
        base = address;
        fireChangeEvent(DebugEvent.STATE);
    }

    @Override
    public MemoryByte[] getBytesFromOffset(BigInteger unitOffset, long addressableUnits) throws DebugException {
        return getBytesFromAddress(base.add(unitOffset), addressableUnits);
    }

    @Override
    public MemoryByte[] getBytesFromAddress(BigInteger address, long units) throws DebugException {
        int n = (int) Math.min(units, 1 << 20);
        MemoryByte[] out = new MemoryByte[n];
        long at = address.longValue();
        Memory.Block b;
        if (target.isTerminated() || !target.isSuspended()) {
            b = new Memory.Block(at, new byte[n], new boolean[n]); // a running rank's memory is not read
        } else {
            try {
                b = Memory.read(target.debugger().gdb(), at, n);
            } catch (MiException e) {
                throw ManaDebugModel.debugError(e);
            }
        }
        synchronized (lastRead) {
            for (int i = 0; i < n; i++) {
                MemoryByte m = new MemoryByte(b.bytes()[i]);
                m.setEndianessKnown(true);
                m.setBigEndian(false);
                if (b.readable()[i]) {
                    m.setReadable(true);
                    m.setWritable(true);
                    Byte before = lastRead.put(at + i, b.bytes()[i]);
                    m.setHistoryKnown(before != null);
                    m.setChanged(before != null && before != b.bytes()[i]);
                } else {
                    m.setReadable(false);
                }
                out[i] = m;
            }
        }
        return out;
    }

    @Override
    public void setValue(BigInteger offset, byte[] bytes) throws DebugException {
        setValue(offset.longValue(), bytes);
    }

    @Override
    public long getStartAddress() { return base.longValue(); }
    @Override
    public long getLength() { return DEFAULT_LENGTH; }

    @Override
    public byte[] getBytes() throws DebugException {
        MemoryByte[] m = getBytesFromAddress(base, DEFAULT_LENGTH);
        byte[] out = new byte[m.length];
        for (int i = 0; i < m.length; i++) {
            out[i] = m[i].getValue();
        }
        return out;
    }

    @Override
    public boolean supportsValueModification() { return true; }

    @Override
    public void setValue(long offset, byte[] bytes) throws DebugException {
        if (!target.isSuspended()) {
            throw ManaDebugModel.debugError(new MiException(null, "the rank is running: suspend it to change its memory"));
        }
        try {
            Memory.write(target.debugger().gdb(), base.longValue() + offset, bytes);
        } catch (MiException e) {
            throw ManaDebugModel.debugError(e);
        }
        fireChangeEvent(DebugEvent.CONTENT);
    }

    @Override
    public synchronized void connect(Object client) {
        if (!connections.contains(client)) {
            connections.add(client);
        }
    }

    @Override
    public synchronized void disconnect(Object client) {
        connections.remove(client);
    }

    @Override
    public synchronized Object[] getConnections() { return connections.toArray(); }

    @Override
    public void dispose() {
        synchronized (lastRead) {
            lastRead.clear();
        }
    }

    @Override
    public IMemoryBlockRetrieval getMemoryBlockRetrieval() { return target; }
}
