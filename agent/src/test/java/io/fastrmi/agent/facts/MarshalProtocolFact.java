package io.fastrmi.agent.facts;

import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Prints the serialization protocol version RMI's {@code MarshalOutputStream} writes with, read off
 * the stream it writes: with PROTOCOL_VERSION_2 (ObjectOutputStream's default) an Externalizable
 * class descriptor carries SC_BLOCK_DATA, with PROTOCOL_VERSION_1 it does not. Run with
 * {@code --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED}.
 */
public final class MarshalProtocolFact {

    public static void main(String[] args) throws Exception {
        OutputStream bytes = new ByteArrayOutputStream();
        ObjectOutputStream marshal = (ObjectOutputStream) Class.forName("sun.rmi.server.MarshalOutputStream")
                .getConstructor(OutputStream.class).newInstance(bytes);
        System.out.println("MarshalOutputStream protocol " + protocolOf(marshal, bytes));
        OutputStream plainBytes = new ByteArrayOutputStream();
        System.out.println("ObjectOutputStream protocol " + protocolOf(new ObjectOutputStream(plainBytes), plainBytes));
    }

    static int protocolOf(ObjectOutputStream out, OutputStream bytes) throws Exception {
        out.writeObject(new Ext());
        out.flush();
        byte[] written = ((ByteArrayOutputStream) bytes).toByteArray();
        byte[] name = Ext.class.getName().getBytes(StandardCharsets.UTF_8);
        int at = indexOf(written, name);
        byte flags = written[at + name.length + 8]; // class name, then the 8-byte serialVersionUID
        if ((flags & java.io.ObjectStreamConstants.SC_EXTERNALIZABLE) == 0) {
            throw new IllegalStateException("not an Externalizable descriptor");
        }
        return (flags & java.io.ObjectStreamConstants.SC_BLOCK_DATA) != 0 ? 2 : 1;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("class name not in stream");
    }

    public static final class Ext implements Externalizable {
        private static final long serialVersionUID = 1L;

        public Ext() {
        }

        @Override
        public void writeExternal(ObjectOutput out) throws java.io.IOException {
            out.writeInt(42);
        }

        @Override
        public void readExternal(ObjectInput in) throws java.io.IOException {
            in.readInt();
        }
    }
}
