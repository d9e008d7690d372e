/**
 * RMI's sockets under FastRMI: the socket factory RMI uses where the application chose none, and the
 * sockets that offer (client) or answer (server, at the first read) before RMI's own protocol. The top
 * room: RMI's sockets negotiate for themselves under scope = jvm too.
 */
package io.fastrmi.fastsockets.rmi;
