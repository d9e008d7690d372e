package io.fastrmi.netpipe.bench.objects;

import java.io.Serializable;
import java.util.Objects;

/** One line of an {@link Order}. */
public final class Item implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String sku;
    private final int quantity;
    private final double price;

    public Item(String sku, int quantity, double price) {
        this.sku = sku;
        this.quantity = quantity;
        this.price = price;
    }

    public String sku() {
        return sku;
    }

    public int quantity() {
        return quantity;
    }

    public double price() {
        return price;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Item item && sku.equals(item.sku) && quantity == item.quantity
                && Double.compare(price, item.price) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(sku, quantity, price);
    }

    @Override
    public String toString() {
        return sku + " x" + quantity + " @" + price;
    }
}
