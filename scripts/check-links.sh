#!/usr/bin/env bash
# check-links.sh - checks the relative links of the project's Markdown documentation.
#
# Reads README.md, CONTRIBUTING.md, docs/*.md and the modules' README.md files (*/README.md) and
# checks every relative Markdown link [text](path), [text](path#anchor) and [text](#anchor): the
# file (or folder) must exist, and an anchor into a Markdown file must be one of its headings'
# anchors as GitHub makes them (lower case, punctuation dropped, spaces to '-', '-1', '-2', ...
# for repeats). Links with a scheme (https:, mailto:, ...) and anything inside code (fenced blocks,
# `inline code`) are not checked. Prints each broken link as FILE:LINE: [target] why, then a
# summary; exits 1 if any is broken, 0 otherwise. Run from anywhere: paths are the repository's.
#
# Usage: scripts/check-links.sh [FILE.md ...]   (default: the files above)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if (($# == 0)); then
	shopt -s nullglob
	set -- README.md CONTRIBUTING.md docs/*.md */README.md
fi

exec perl -CSD -Mutf8 -e '
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;

my %anchors;    # file -> { anchor -> 1 }

# The lines of a Markdown file with fenced code blocks blanked out (line numbers kept).
sub prose_lines {
    my ($file) = @_;
    open(my $in, "<:encoding(UTF-8)", $file) or return;
    my @lines;
    my $fence;
    while (my $line = <$in>) {
        chomp $line;
        if (defined $fence) {
            $fence = undef if $line =~ /^\s*\Q$fence\E\s*$/;
            push @lines, "";
        } elsif ($line =~ /^\s*(```+|~~~+)/) {
            $fence = $1;
            push @lines, "";
        } else {
            push @lines, $line;
        }
    }
    close $in;
    return @lines;
}

sub slug {
    my ($text) = @_;
    $text =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;    # [text](link) -> text
    $text = lc $text;
    $text =~ s/[^\p{L}\p{M}\p{N}\p{Pc} -]//g;   # GitHub drops punctuation, keeps _ and -
    $text =~ s/ /-/g;
    return $text;
}

sub anchors_of {
    my ($file) = @_;
    return $anchors{$file} if $anchors{$file};
    my %seen;
    my %set;
    for my $line (prose_lines($file)) {
        next unless $line =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
        my $base = slug($1);
        my $anchor = $base;
        $anchor = "$base-" . $seen{$base} if $seen{$base};
        $seen{$base}++;
        $set{$anchor} = 1;
    }
    return $anchors{$file} = \%set;
}

my ($checked, $broken) = (0, 0);
for my $file (@ARGV) {
    if (!-f $file) {
        print "$file: no such file\n";
        $broken++;
        next;
    }
    my @lines = prose_lines($file);
    for my $i (0 .. $#lines) {
        my $line = $lines[$i];
        $line =~ s/(`+).*?\1//g;    # inline code
        while ($line =~ /\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g) {
            my $target = $1;
            next if $target eq "" || $target =~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
            $checked++;
            my ($path, $anchor) = split /#/, $target, 2;
            my $dest = $path eq "" ? $file : File::Spec->catfile(dirname($file), $path);
            my $why;
            if (!-e $dest) {
                $why = "no such file: $dest";
            } elsif (defined $anchor && $anchor ne "" && $dest =~ /\.md$/i && -f $dest
                     && !anchors_of($dest)->{lc $anchor}) {
                $why = "no heading with anchor #$anchor in $dest";
            }
            if (defined $why) {
                printf "%s:%d: [%s] %s\n", $file, $i + 1, $target, $why;
                $broken++;
            }
        }
    }
}
printf "check-links: %d relative links in %d files, %d broken\n", $checked, scalar(@ARGV), $broken;
exit($broken ? 1 : 0);
' "$@"
