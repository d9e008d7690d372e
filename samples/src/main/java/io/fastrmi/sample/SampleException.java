package io.fastrmi.sample;

/** The application exception that {@link SampleService#fail} throws across the wire. */
public class SampleException extends Exception {

    private static final long serialVersionUID = 1L;

    public SampleException(String message) {
        super(message);
    }
}
