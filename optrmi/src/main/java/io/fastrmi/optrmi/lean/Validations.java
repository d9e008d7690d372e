package io.fastrmi.optrmi.lean;

import java.io.InvalidObjectException;
import java.io.ObjectInputValidation;
import java.util.ArrayList;
import java.util.List;

/**
 * The validations registered ({@code registerValidation}) while one outermost readObject runs, run
 * when it ends as the JDK runs them: the highest priority first, then in the order registered.
 */
final class Validations {

    private record Validation(ObjectInputValidation callback, int priority, int order) {
    }

    private final List<Validation> pending = new ArrayList<>();

    void add(ObjectInputValidation callback, int priority) {
        pending.add(new Validation(callback, priority, pending.size()));
    }

    void run() throws InvalidObjectException {
        pending.sort((a, b) -> a.priority != b.priority ? Integer.compare(b.priority, a.priority) : Integer.compare(a.order, b.order));
        for (Validation v : pending) {
            v.callback.validateObject();
        }
    }
}
