package io.fastrmi.fastsockets.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.dgc.DGC;
import java.rmi.dgc.Lease;
import java.rmi.dgc.VMID;
import java.rmi.server.ObjID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which connections DGC's calls get, without RMI: the rule alone. */
class DgcConnectionsTest {

    /** A DGC stub as RMI's DGC client holds one (only its type matters here). */
    private static final DGC DGC_STUB = new DGC() {
        @Override
        public Lease dirty(ObjID[] ids, long sequenceNum, Lease lease) {
            return lease;
        }

        @Override
        public void clean(ObjID[] ids, long sequenceNum, VMID vmid, boolean strong) {
        }
    };

    @BeforeEach
    @AfterEach
    void forget() {
        DgcConnections.callEnds();
        DgcConnections.forgetEndpoints();
    }

    @Test
    void aDgcCallToAnEndpointNotCalledGetsASingleCallConnection() {
        assertFalse(DgcConnections.singleCall("10.0.0.1", 1099)); // the registry, outside a DGC call
        DgcConnections.callBegins(DGC_STUB);
        assertTrue(DgcConnections.singleCall("10.0.0.2", 40000));
        assertTrue(DgcConnections.singleCall("10.0.0.2", 40000), "a single call each time: never noted as called");
        assertFalse(DgcConnections.singleCall("10.0.0.1", 1099), "an endpoint called before gets RMI's usual connection");
        DgcConnections.callEnds();
        assertFalse(DgcConnections.singleCall("10.0.0.2", 40000), "the application's call");
        DgcConnections.callBegins(DGC_STUB);
        assertFalse(DgcConnections.singleCall("10.0.0.2", 40000), "called now: DGC's next connection is as any other");
    }

    @Test
    void otherStubsCallsAreNotDgcs() {
        assertFalse(DgcConnections.singleCall("10.0.0.1", 1099));
        DgcConnections.callBegins(new Object());
        assertFalse(DgcConnections.singleCall("10.0.0.3", 40000));
    }

    @Test
    void theFirstConnectionOfAJvmIsSingleCallOnlyWhereRmiKnowsItsHost() {
        DgcConnections.callBegins(DGC_STUB);
        assertEquals(DgcConnections.localHostKnown(), DgcConnections.singleCall("10.0.0.2", 40000));
    }

    @Test
    void rmiKnowsItsHostFromTheHostnamePropertyOrANonLoopbackAddress() throws Exception {
        assertTrue(DgcConnections.localHostKnown("node7"));
        byte[] local = InetAddress.getLocalHost().getAddress();
        boolean loopbackOne = local.length == 4 && local[0] == 127 && local[1] == 0 && local[2] == 0 && local[3] == 1;
        assertEquals(!loopbackOne, DgcConnections.localHostKnown(null));
    }

    @Test
    void onlyASingleCallSocketTellsRmiItIsNotReusable() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
                Socket plain = new Socket(listener.getInetAddress(), listener.getLocalPort());
                Socket single = DgcConnections.singleCallSocket(listener.getInetAddress(), listener.getLocalPort())) {
            assertTrue(DgcConnections.reusable(plain));
            assertFalse(DgcConnections.reusable(single));
            assertTrue(single.isConnected());
        }
    }
}
