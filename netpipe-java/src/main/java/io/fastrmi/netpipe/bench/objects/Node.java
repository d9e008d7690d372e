package io.fastrmi.netpipe.bench.objects;

import java.io.Serializable;
import java.util.Objects;

/** A binary tree node: a small graph of objects for serialization to walk. */
public final class Node implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int value;
    private final Node left;
    private final Node right;

    public Node(int value, Node left, Node right) {
        this.value = value;
        this.left = left;
        this.right = right;
    }

    /** A full tree of {@code 2^depth - 1} nodes, numbered in pre-order from {@code first}. */
    public static Node fullTree(int depth, int first) {
        if (depth == 0) {
            return null;
        }
        int leftSize = (1 << (depth - 1)) - 1;
        return new Node(first, fullTree(depth - 1, first + 1), fullTree(depth - 1, first + 1 + leftSize));
    }

    public int value() {
        return value;
    }

    public Node left() {
        return left;
    }

    public Node right() {
        return right;
    }

    public int size() {
        return 1 + (left == null ? 0 : left.size()) + (right == null ? 0 : right.size());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Node node && value == node.value && Objects.equals(left, node.left)
                && Objects.equals(right, node.right);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, left, right);
    }

    @Override
    public String toString() {
        return "(" + value + (left == null && right == null ? "" : " " + left + " " + right) + ")";
    }
}
