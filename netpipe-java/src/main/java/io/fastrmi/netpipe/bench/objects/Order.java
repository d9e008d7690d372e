package io.fastrmi.netpipe.bench.objects;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** A typical business object: strings, a long, and a list of {@link Item}s. */
public final class Order implements Serializable {

    private static final long serialVersionUID = 1L;

    /** What {@link #transformed()} appends to the customer. */
    public static final String PROCESSED = " (processed)";

    private final String customer;
    private final long id;
    @SuppressWarnings("serial") // always an ArrayList
    private final List<Item> items;

    public Order(String customer, long id, List<Item> items) {
        this.customer = customer;
        this.id = id;
        this.items = new ArrayList<>(items);
    }

    /** An order of {@code count} items with distinct SKUs, quantities and prices. */
    public static Order sample(int count) {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            items.add(new Item("SKU-" + (10_000 + i), i + 1, 9.99 + i));
        }
        return new Order("ACME Corporation", 4_200_000_042L, items);
    }

    /**
     * What the server returns: quantities doubled, the customer marked as processed. The client
     * computes it too, to check the server's answer.
     */
    public Order transformed() {
        List<Item> doubled = new ArrayList<>(items.size());
        for (Item item : items) {
            doubled.add(new Item(item.sku(), item.quantity() * 2, item.price()));
        }
        return new Order(customer + PROCESSED, id, doubled);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Order order && customer.equals(order.customer) && id == order.id
                && items.equals(order.items);
    }

    @Override
    public int hashCode() {
        return Objects.hash(customer, id, items);
    }

    @Override
    public String toString() {
        return "Order " + id + " of " + customer + " " + items;
    }
}
