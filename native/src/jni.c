/*
 * jni.c - the library's API for JVMs without FFM (JDK 17 and 21): the native methods of
 * io.fastrmi.fastsockets.jni.JniCalls, registered when System.load loads the library.
 *
 * A thin layer: each method calls one fastrmi_* function of include/fastrmi.h (the one
 * contract), so FFM and JNI share every check and every message. Pointers travel as Java longs
 * (a context or stream is a positive address; a negative value is a FASTRMI_ERR_* status). A
 * message goes into the caller's byte[] (NUL-terminated) only when the call failed.
 *
 * Arrays: a transfer that never waits (timeout 0) copies straight between the library and the
 * Java array inside a critical region (GetPrimitiveArrayCritical), the one copy FFM's critical
 * downcalls make; a call that may wait never holds a critical region, since the GC waits for
 * it. A context whose calls may spin on a dead peer's lock (fastrmi_ctx_may_spin_on_dead_peer)
 * is given a buffer of its own outside the heap instead (bounce*): the library call runs
 * outside any critical region, and only the copy to or from the array inside one. Nothing is
 * allocated per transfer.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The JniCalls class, and how the two sides know they were built together. */
#define FR_JNI_CLASS "io/fastrmi/fastsockets/jni/JniCalls"
#define FR_JNI_ABI 2
#define FR_JNI_ERRLEN 512
/*
 * The transfers' message buffers are not cleared (a 512-byte memset per call costs more than the
 * call): each fastrmi_* transfer clears its message on entry and writes it when it fails.
 */

/* A long from Java as the pointer it holds, and back. */
#define FR_PTR(type, v) ((type *)(uintptr_t)(v))
#define FR_JLONG(p) ((jlong)(uintptr_t)(p))

/* The message of a failed call into the caller's byte[] (as much as fits, NUL-terminated). */
static void fr_jni_error(JNIEnv *env, jbyteArray out, const char *msg)
{
	jsize cap, n;

	if (out == NULL || msg == NULL)
		return;
	cap = (*env)->GetArrayLength(env, out);
	if (cap <= 0)
		return;
	n = (jsize)strnlen(msg, (size_t)cap - 1);
	(*env)->SetByteArrayRegion(env, out, 0, n, (const jbyte *)msg);
	if (!(*env)->ExceptionCheck(env))
		(*env)->SetByteArrayRegion(env, out, n, 1, (const jbyte *)"");
}

/*
 * A byte[] holding a NUL-terminated string or raw bytes, copied out (len: its length). NULL, with
 * the message in err, when it cannot be (an exception may then be pending: the caller returns).
 */
static jbyte *fr_jni_bytes(JNIEnv *env, jbyteArray array, jsize *len, char *err, size_t errlen)
{
	jbyte *copy;

	if (array == NULL) {
		fr_seterr(err, errlen, "a NULL array");
		return NULL;
	}
	*len = (*env)->GetArrayLength(env, array);
	copy = malloc((size_t)*len + 1);
	if (copy == NULL) {
		fr_seterr(err, errlen, "out of memory for %ld bytes", (long)*len);
		return NULL;
	}
	(*env)->GetByteArrayRegion(env, array, 0, *len, copy);
	if ((*env)->ExceptionCheck(env)) {
		free(copy);
		fr_seterr(err, errlen, "GetByteArrayRegion failed");
		return NULL;
	}
	copy[*len] = 0;
	return copy;
}

/* ---- the library ------------------------------------------------------------------------- */

static jint JNICALL fr_jni_abi(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return FR_JNI_ABI;
}

static jstring JNICALL fr_jni_version(JNIEnv *env, jclass cls)
{
	(void)cls;
	return (*env)->NewStringUTF(env, fastrmi_version());
}

static jint JNICALL fr_jni_ofi_version(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return (jint)fastrmi_ofi_version();
}

static jstring JNICALL fr_jni_ucx_version(JNIEnv *env, jclass cls)
{
	(void)cls;
	return (*env)->NewStringUTF(env, fastrmi_ucx_version());
}

static jstring JNICALL fr_jni_strstatus(JNIEnv *env, jclass cls, jint status)
{
	(void)cls;
	return (*env)->NewStringUTF(env, fastrmi_strstatus(status));
}

static jint JNICALL fr_jni_process_uid(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return (jint)fastrmi_process_uid();
}

/* out: {uid, inode}. */
static jint JNICALL fr_jni_tcp_peer(JNIEnv *env, jclass cls, jbyteArray peer_ip, jint peer_port, jbyteArray own_ip,
				    jint own_port, jlongArray out, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	jbyte *peer = NULL, *own = NULL;
	jsize peer_len = 0, own_len = 0;
	uint32_t uid = 0;
	uint64_t inode = 0;
	jlong values[2];
	int ret = FASTRMI_ERR_INVALID;

	(void)cls;
	peer = fr_jni_bytes(env, peer_ip, &peer_len, err, sizeof(err));
	if (peer != NULL)
		own = fr_jni_bytes(env, own_ip, &own_len, err, sizeof(err));
	if (peer != NULL && own != NULL)
		ret = fastrmi_tcp_peer((const uint8_t *)peer, (size_t)peer_len, (uint16_t)peer_port, (const uint8_t *)own,
				       (size_t)own_len, (uint16_t)own_port, &uid, &inode, err, sizeof(err));
	free(peer);
	free(own);
	if (ret == 0) {
		values[0] = (jlong)uid;
		values[1] = (jlong)inode;
		(*env)->SetLongArrayRegion(env, out, 0, 2, values);
		if ((*env)->ExceptionCheck(env))
			return FASTRMI_ERR_INVALID;
	} else if (!(*env)->ExceptionCheck(env)) {
		fr_jni_error(env, errout, err);
	}
	return ret;
}

static jint JNICALL fr_jni_process_holds_socket(JNIEnv *env, jclass cls, jlong pid, jlong inode, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_process_holds_socket((int64_t)pid, (uint64_t)inode, err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

/* ---- contexts ---------------------------------------------------------------------------- */

/* The context's address, or a negative status. provider: NUL-terminated UTF-8. */
static jlong JNICALL fr_jni_ctx_open(JNIEnv *env, jclass cls, jint backend, jbyteArray provider, jint spin_usec,
				     jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	fastrmi_ctx *ctx = NULL;
	jsize len;
	jbyte *name;
	int ret;

	(void)cls;
	name = fr_jni_bytes(env, provider, &len, err, sizeof(err));
	if (name == NULL) {
		fr_jni_error(env, errout, err);
		return FASTRMI_ERR_INVALID;
	}
	ret = fastrmi_ctx_open(backend, (const char *)name, spin_usec < 0 ? 0 : (uint32_t)spin_usec, &ctx, err,
			       sizeof(err));
	free(name);
	if (ret != 0) {
		fr_jni_error(env, errout, err);
		return ret;
	}
	return FR_JLONG(ctx);
}

static jint JNICALL fr_jni_ctx_set_wait(JNIEnv *env, jclass cls, jlong ctx, jint mode, jint usable_cpus,
					jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_ctx_set_wait(FR_PTR(fastrmi_ctx, ctx), mode, usable_cpus, err, sizeof(err));

	(void)cls;
	if (ret != 0)
		fr_jni_error(env, errout, err);
	return ret;
}

/* The address's length, or a negative status (FASTRMI_ERR_INVALID: buf is too small). */
static jint JNICALL fr_jni_ctx_address(JNIEnv *env, jclass cls, jlong ctx, jbyteArray buf)
{
	unsigned char address[FASTRMI_ADDRESS_MAX];
	size_t len = sizeof(address);
	int ret;

	(void)cls;
	ret = fastrmi_ctx_address(FR_PTR(fastrmi_ctx, ctx), address, &len);
	if (ret != 0)
		return ret;
	if (len > (size_t)(*env)->GetArrayLength(env, buf))
		return FASTRMI_ERR_INVALID;
	(*env)->SetByteArrayRegion(env, buf, 0, (jsize)len, (const jbyte *)address);
	return (*env)->ExceptionCheck(env) ? FASTRMI_ERR_INVALID : (jint)len;
}

static void JNICALL fr_jni_ctx_close(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)env;
	(void)cls;
	fastrmi_ctx_close(FR_PTR(fastrmi_ctx, ctx));
}

static jlong JNICALL fr_jni_ctx_peers_left(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)env;
	(void)cls;
	return fastrmi_ctx_peers_left(FR_PTR(fastrmi_ctx, ctx));
}

static jlong JNICALL fr_jni_ctx_peers_gone(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)env;
	(void)cls;
	return fastrmi_ctx_peers_gone(FR_PTR(fastrmi_ctx, ctx));
}

static jint JNICALL fr_jni_ctx_peer_can_block_others(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)env;
	(void)cls;
	return fastrmi_ctx_peer_can_block_others(FR_PTR(fastrmi_ctx, ctx));
}

static jint JNICALL fr_jni_ctx_may_spin_on_dead_peer(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)env;
	(void)cls;
	return fastrmi_ctx_may_spin_on_dead_peer(FR_PTR(fastrmi_ctx, ctx));
}

static jint JNICALL fr_jni_ctx_expect_peer(JNIEnv *env, jclass cls, jlong ctx, jbyteArray ip, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	jsize len;
	jbyte *bytes = fr_jni_bytes(env, ip, &len, err, sizeof(err));
	int ret = FASTRMI_ERR_INVALID;

	(void)cls;
	if (bytes != NULL)
		ret = fastrmi_ctx_expect_peer(FR_PTR(fastrmi_ctx, ctx), (const uint8_t *)bytes, (size_t)len, err,
					      sizeof(err));
	free(bytes);
	if (ret != 0 && !(*env)->ExceptionCheck(env))
		fr_jni_error(env, errout, err);
	return ret;
}

/* ---- streams ----------------------------------------------------------------------------- */

/* The stream's address, or a negative status. */
static jlong JNICALL fr_jni_stream_open(JNIEnv *env, jclass cls, jlong ctx, jbyteArray peer_address,
					jlong local_id, jlong peer_id, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	fastrmi_stream *stream = NULL;
	jsize len;
	jbyte *address = fr_jni_bytes(env, peer_address, &len, err, sizeof(err));
	int ret = FASTRMI_ERR_INVALID;

	(void)cls;
	if (address != NULL)
		ret = fastrmi_stream_open(FR_PTR(fastrmi_ctx, ctx), address, (size_t)len, (uint64_t)local_id,
					  (uint64_t)peer_id, &stream, err, sizeof(err));
	free(address);
	if (ret != 0) {
		if (!(*env)->ExceptionCheck(env))
			fr_jni_error(env, errout, err);
		return ret;
	}
	return FR_JLONG(stream);
}

/*
 * What is there now, without waiting, straight into or out of the array (a critical region
 * around a call that never waits): a byte count, FASTRMI_ERR_TIMEOUT for none, or another status.
 */
static jlong fr_jni_transfer_now(JNIEnv *env, jlong stream, jarray array, jlong offset, jlong length, int sending,
				 jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	void *base;
	int64_t n;

	if (array == NULL || offset < 0 || length < 0) {
		fr_jni_error(env, errout, sending ? "fastrmi_send_at: bad argument" : "fastrmi_recv_at: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	base = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
	if (base == NULL) {
		(*env)->ExceptionClear(env); /* an OutOfMemoryError: reported as this call's status */
		fr_jni_error(env, errout, "GetPrimitiveArrayCritical failed: out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	n = sending ? fastrmi_send_at(FR_PTR(fastrmi_stream, stream), base, (size_t)offset, (size_t)length, 0, err,
				      sizeof(err))
		    : fastrmi_recv_at(FR_PTR(fastrmi_stream, stream), base, (size_t)offset, (size_t)length, 0, err,
				      sizeof(err));
	/* JNI_ABORT for a send: the array was only read, nothing to copy back where it was a copy. */
	(*env)->ReleasePrimitiveArrayCritical(env, array, base, sending ? JNI_ABORT : 0);
	if (n < 0 && n != FASTRMI_ERR_TIMEOUT)
		fr_jni_error(env, errout, err);
	return n;
}

static jlong JNICALL fr_jni_recv_now(JNIEnv *env, jclass cls, jlong stream, jarray array, jlong offset, jlong length,
				     jbyteArray errout)
{
	(void)cls;
	return fr_jni_transfer_now(env, stream, array, offset, length, 0, errout);
}

/* fastrmi_recv_received_at straight into the array: never waits, so a critical region on any context. */
static jlong JNICALL fr_jni_recv_received(JNIEnv *env, jclass cls, jlong stream, jarray array, jlong offset,
					  jlong length)
{
	void *base;
	int64_t n;

	(void)cls;
	if (array == NULL || offset < 0 || length < 0)
		return FASTRMI_ERR_TIMEOUT; /* the ordinary read that follows reports bad arguments */
	base = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
	if (base == NULL) {
		(*env)->ExceptionClear(env); /* out of memory: the ordinary read that follows goes on */
		return FASTRMI_ERR_TIMEOUT;
	}
	n = fastrmi_recv_received_at(FR_PTR(fastrmi_stream, stream), base, (size_t)offset, (size_t)length);
	(*env)->ReleasePrimitiveArrayCritical(env, array, base, 0);
	return n;
}

static jlong JNICALL fr_jni_send_now(JNIEnv *env, jclass cls, jlong stream, jarray array, jlong offset, jlong length,
				     jbyteArray errout)
{
	(void)cls;
	return fr_jni_transfer_now(env, stream, array, offset, length, 1, errout);
}

/* A blocking send's last step (fastrmi_send of 0 bytes): the provider finishes our messages. */
static jlong JNICALL fr_jni_send_finish(JNIEnv *env, jclass cls, jlong stream, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	int64_t n = fastrmi_send(FR_PTR(fastrmi_stream, stream), NULL, 0, -1, err, sizeof(err));

	(void)cls;
	if (n < 0)
		fr_jni_error(env, errout, err);
	return n;
}

/* A stream's buffer outside the heap (bounce*), or 0 when out of memory. */
static jlong JNICALL fr_jni_bounce_open(JNIEnv *env, jclass cls, jint bytes)
{
	(void)env;
	(void)cls;
	return bytes > 0 ? FR_JLONG(malloc((size_t)bytes)) : 0;
}

static void JNICALL fr_jni_bounce_close(JNIEnv *env, jclass cls, jlong bounce)
{
	(void)env;
	(void)cls;
	free(FR_PTR(void, bounce));
}

/* Copies n bytes between the bounce buffer and the array from offset, inside a critical region. */
static int fr_jni_bounce_copy(JNIEnv *env, jarray array, jlong offset, void *bounce, size_t n, int to_array)
{
	unsigned char *base = (*env)->GetPrimitiveArrayCritical(env, array, NULL);

	if (base == NULL) {
		(*env)->ExceptionClear(env);
		return FASTRMI_ERR_NOMEM;
	}
	if (to_array)
		memcpy(base + offset, bounce, n);
	else
		memcpy(bounce, base + offset, n);
	(*env)->ReleasePrimitiveArrayCritical(env, array, base, to_array ? 0 : JNI_ABORT);
	return 0;
}

/*
 * A read through the stream's bounce buffer, as one call that waits in the library if it must
 * (timeout_ms as fastrmi_recv's): the byte count, 0 at the end of the stream, or a status.
 */
static jlong JNICALL fr_jni_recv_bounced(JNIEnv *env, jclass cls, jlong stream, jlong bounce, jint bounce_len,
					 jarray array, jlong offset, jlong length, jint timeout_ms, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	size_t cap = (size_t)(length < bounce_len ? length : bounce_len);
	int64_t n;

	(void)cls;
	if (array == NULL || bounce == 0 || offset < 0 || length < 0 || bounce_len <= 0) {
		fr_jni_error(env, errout, "fastrmi_recv: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	n = fastrmi_recv(FR_PTR(fastrmi_stream, stream), FR_PTR(void, bounce), cap, timeout_ms, err, sizeof(err));
	if (n < 0) {
		fr_jni_error(env, errout, err);
		return n;
	}
	if (n > 0 && fr_jni_bounce_copy(env, array, offset, FR_PTR(void, bounce), (size_t)n, 1) != 0) {
		fr_jni_error(env, errout, "GetPrimitiveArrayCritical failed: out of memory (bytes read are lost)");
		return FASTRMI_ERR_NOMEM;
	}
	return n;
}

/* A write through the stream's bounce buffer, piece by piece, each handed over before the next. */
static jlong JNICALL fr_jni_send_bounced(JNIEnv *env, jclass cls, jlong stream, jlong bounce, jint bounce_len,
					 jarray array, jlong offset, jlong length, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	jlong sent = 0;
	int64_t n;

	(void)cls;
	if (array == NULL || bounce == 0 || offset < 0 || length < 0 || bounce_len <= 0) {
		fr_jni_error(env, errout, "fastrmi_send: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	while (sent < length) {
		size_t piece = (size_t)(length - sent < bounce_len ? length - sent : bounce_len);

		if (fr_jni_bounce_copy(env, array, offset + sent, FR_PTR(void, bounce), piece, 0) != 0) {
			fr_jni_error(env, errout, "GetPrimitiveArrayCritical failed: out of memory");
			return FASTRMI_ERR_NOMEM;
		}
		n = fastrmi_send(FR_PTR(fastrmi_stream, stream), FR_PTR(void, bounce), piece, -1, err, sizeof(err));
		if (n < 0) {
			fr_jni_error(env, errout, err);
			return n;
		}
		sent += (jlong)piece;
	}
	return sent;
}

static jlong JNICALL fr_jni_wait_readable(JNIEnv *env, jclass cls, jlong stream, jint timeout_ms, jboolean after_nudge,
					  jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	int64_t n = after_nudge
		? fastrmi_wait_readable_after_nudge(FR_PTR(fastrmi_stream, stream), timeout_ms, err, sizeof(err))
		: fastrmi_wait_readable(FR_PTR(fastrmi_stream, stream), timeout_ms, err, sizeof(err));

	(void)cls;
	if (n < 0)
		fr_jni_error(env, errout, err);
	return n;
}

static jint JNICALL fr_jni_wait_writable(JNIEnv *env, jclass cls, jlong stream, jint timeout_ms, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN];
	int ret = fastrmi_wait_writable(FR_PTR(fastrmi_stream, stream), timeout_ms, err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

/* No message: the stream's reader and writer may be using their buffers; a nudge of an open stream cannot fail. */
static jint JNICALL fr_jni_stream_nudge(JNIEnv *env, jclass cls, jlong stream, jlong spin_nsec)
{
	(void)env;
	(void)cls;
	return fastrmi_stream_nudge(FR_PTR(fastrmi_stream, stream), spin_nsec < 0 ? 0 : (uint64_t)spin_nsec, NULL, 0);
}

static jlong JNICALL fr_jni_available(JNIEnv *env, jclass cls, jlong stream)
{
	(void)env;
	(void)cls;
	return (jlong)fastrmi_available(FR_PTR(fastrmi_stream, stream));
}

static jint JNICALL fr_jni_shutdown_write(JNIEnv *env, jclass cls, jlong stream, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_shutdown_write(FR_PTR(fastrmi_stream, stream), err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

static void JNICALL fr_jni_stream_abort(JNIEnv *env, jclass cls, jlong stream)
{
	(void)env;
	(void)cls;
	fastrmi_stream_abort(FR_PTR(fastrmi_stream, stream));
}

static void JNICALL fr_jni_stream_close(JNIEnv *env, jclass cls, jlong stream)
{
	(void)env;
	(void)cls;
	fastrmi_stream_close(FR_PTR(fastrmi_stream, stream));
}

/* ---- waits and nudges -------------------------------------------------------------------- */

/* A budget is a long[] of FASTRMI_WAIT_BUDGET_SIZE bytes (8-aligned), read and written in place. */
static jlong JNICALL fr_jni_wait_spin_for(JNIEnv *env, jclass cls, jlongArray budget, jint mode, jlong max_nsec)
{
	void *memory;
	uint64_t spin;

	(void)cls;
	if (budget == NULL || (*env)->GetArrayLength(env, budget) * 8 < FASTRMI_WAIT_BUDGET_SIZE)
		return 0;
	memory = (*env)->GetPrimitiveArrayCritical(env, budget, NULL);
	if (memory == NULL) {
		(*env)->ExceptionClear(env);
		return 0; /* no budget, no spin */
	}
	spin = fastrmi_wait_spin_for(memory, mode, max_nsec < 0 ? 0 : (uint64_t)max_nsec);
	(*env)->ReleasePrimitiveArrayCritical(env, budget, memory, 0);
	return (jlong)spin;
}

static void JNICALL fr_jni_wait_learn(JNIEnv *env, jclass cls, jlongArray budget, jlong max_nsec, jlong waited_nsec,
				      jboolean answered_spinning)
{
	void *memory;

	(void)cls;
	if (budget == NULL || (*env)->GetArrayLength(env, budget) * 8 < FASTRMI_WAIT_BUDGET_SIZE)
		return;
	memory = (*env)->GetPrimitiveArrayCritical(env, budget, NULL);
	if (memory == NULL) {
		(*env)->ExceptionClear(env);
		return;
	}
	fastrmi_wait_learn(memory, max_nsec < 0 ? 0 : (uint64_t)max_nsec, waited_nsec < 0 ? 0 : (uint64_t)waited_nsec,
			   answered_spinning);
	(*env)->ReleasePrimitiveArrayCritical(env, budget, memory, 0);
}

static jint JNICALL fr_jni_wait_may_spin(JNIEnv *env, jclass cls, jint mode, jlong max_nsec)
{
	(void)env;
	(void)cls;
	return fastrmi_wait_may_spin(mode, max_nsec < 0 ? 0 : (uint64_t)max_nsec);
}

static jint JNICALL fr_jni_wait_spinners_max(JNIEnv *env, jclass cls, jint usable_cpus)
{
	(void)env;
	(void)cls;
	return fastrmi_wait_spinners_max(usable_cpus);
}

static jint JNICALL fr_jni_nudge_open(JNIEnv *env, jclass cls, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_nudge_open(err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

/* No message: any thread nudges; the status names what went wrong. */
static jint JNICALL fr_jni_nudge(JNIEnv *env, jclass cls, jint nudge)
{
	(void)env;
	(void)cls;
	return fastrmi_nudge(nudge, NULL, 0);
}

static jint JNICALL fr_jni_nudge_close(JNIEnv *env, jclass cls, jint nudge, jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_nudge_close(nudge, err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

static jint JNICALL fr_jni_nudge_wait(JNIEnv *env, jclass cls, jint fd, jint nudge, jint timeout_ms,
				      jbyteArray errout)
{
	char err[FR_JNI_ERRLEN] = "";
	int ret = fastrmi_nudge_wait(fd, nudge, timeout_ms, err, sizeof(err));

	(void)cls;
	if (ret < 0)
		fr_jni_error(env, errout, err);
	return ret;
}

static jint JNICALL fr_jni_socket_readable(JNIEnv *env, jclass cls, jint fd)
{
	(void)env;
	(void)cls;
	return fastrmi_socket_readable(fd, NULL, 0);
}

/* ---- registration ------------------------------------------------------------------------ */

#define FR_NATIVE(name, signature, fn) { (char *)(name), (char *)(signature), (void *)(fn) }

static const JNINativeMethod fr_jni_methods[] = {
	FR_NATIVE("abi", "()I", fr_jni_abi),
	FR_NATIVE("version", "()Ljava/lang/String;", fr_jni_version),
	FR_NATIVE("ofiVersion", "()I", fr_jni_ofi_version),
	FR_NATIVE("ucxVersion", "()Ljava/lang/String;", fr_jni_ucx_version),
	FR_NATIVE("statusName", "(I)Ljava/lang/String;", fr_jni_strstatus),
	FR_NATIVE("processUid", "()I", fr_jni_process_uid),
	FR_NATIVE("tcpPeer", "([BI[BI[J[B)I", fr_jni_tcp_peer),
	FR_NATIVE("processHoldsSocket", "(JJ[B)I", fr_jni_process_holds_socket),
	FR_NATIVE("ctxOpen", "(I[BI[B)J", fr_jni_ctx_open),
	FR_NATIVE("ctxSetWait", "(JII[B)I", fr_jni_ctx_set_wait),
	FR_NATIVE("ctxAddress", "(J[B)I", fr_jni_ctx_address),
	FR_NATIVE("ctxClose", "(J)V", fr_jni_ctx_close),
	FR_NATIVE("ctxPeersLeft", "(J)J", fr_jni_ctx_peers_left),
	FR_NATIVE("ctxPeersGone", "(J)J", fr_jni_ctx_peers_gone),
	FR_NATIVE("ctxPeerCanBlockOthers", "(J)I", fr_jni_ctx_peer_can_block_others),
	FR_NATIVE("ctxMaySpinOnDeadPeer", "(J)I", fr_jni_ctx_may_spin_on_dead_peer),
	FR_NATIVE("ctxExpectPeer", "(J[B[B)I", fr_jni_ctx_expect_peer),
	FR_NATIVE("streamOpen", "(J[BJJ[B)J", fr_jni_stream_open),
	FR_NATIVE("recvNow", "(JLjava/lang/Object;JJ[B)J", fr_jni_recv_now),
	FR_NATIVE("recvReceived", "(JLjava/lang/Object;JJ)J", fr_jni_recv_received),
	FR_NATIVE("sendNow", "(JLjava/lang/Object;JJ[B)J", fr_jni_send_now),
	FR_NATIVE("sendFinish", "(J[B)J", fr_jni_send_finish),
	FR_NATIVE("bounceOpen", "(I)J", fr_jni_bounce_open),
	FR_NATIVE("bounceClose", "(J)V", fr_jni_bounce_close),
	FR_NATIVE("recvBounced", "(JJILjava/lang/Object;JJI[B)J", fr_jni_recv_bounced),
	FR_NATIVE("sendBounced", "(JJILjava/lang/Object;JJ[B)J", fr_jni_send_bounced),
	FR_NATIVE("waitReadable", "(JIZ[B)J", fr_jni_wait_readable),
	FR_NATIVE("waitWritable", "(JI[B)I", fr_jni_wait_writable),
	FR_NATIVE("streamNudge", "(JJ)I", fr_jni_stream_nudge),
	FR_NATIVE("available", "(J)J", fr_jni_available),
	FR_NATIVE("shutdownWrite", "(J[B)I", fr_jni_shutdown_write),
	FR_NATIVE("streamAbort", "(J)V", fr_jni_stream_abort),
	FR_NATIVE("streamClose", "(J)V", fr_jni_stream_close),
	FR_NATIVE("waitSpinFor", "([JIJ)J", fr_jni_wait_spin_for),
	FR_NATIVE("waitLearn", "([JJJZ)V", fr_jni_wait_learn),
	FR_NATIVE("waitMaySpin", "(IJ)I", fr_jni_wait_may_spin),
	FR_NATIVE("waitSpinnersMax", "(I)I", fr_jni_wait_spinners_max),
	FR_NATIVE("nudgeOpen", "([B)I", fr_jni_nudge_open),
	FR_NATIVE("nudge", "(I)I", fr_jni_nudge),
	FR_NATIVE("nudgeClose", "(I[B)I", fr_jni_nudge_close),
	FR_NATIVE("nudgeWait", "(III[B)I", fr_jni_nudge_wait),
	FR_NATIVE("socketReadable", "(I)I", fr_jni_socket_readable),
};

/*
 * Registers JniCalls's methods when System.load loads the library (FFM's loads do not call
 * this). A JniCalls of another build (a method missing or of another signature) makes
 * RegisterNatives fail with its NoSuchMethodError pending, and the load fails with it.
 */
FASTRMI_API jint JNI_OnLoad(JavaVM *vm, void *reserved)
{
	JNIEnv *env;
	jclass cls;

	(void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
		return JNI_ERR;
	cls = (*env)->FindClass(env, FR_JNI_CLASS);
	if (cls == NULL)
		return JNI_ERR; /* NoClassDefFoundError pending */
	if ((*env)->RegisterNatives(env, cls, fr_jni_methods,
				    (jint)(sizeof(fr_jni_methods) / sizeof(fr_jni_methods[0]))) != JNI_OK)
		return JNI_ERR;
	return JNI_VERSION_1_8;
}
