/**
 * The config file's model and parser, typed transport names and RMI's own limits: what the whole
 * product reads (the lean format here in optrmi, every room of fastsockets, the agent, the
 * benchmarks). It uses nothing of FastRMI but the optimizations' names.
 */
package io.fastrmi.config;
