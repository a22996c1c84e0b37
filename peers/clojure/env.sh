# Sourced by mote-peer-clojure and build.sh: where Clojure and core.async are, and the
# class path both use. Debian's packages (clojure, libcore-async-clojure) put the jars in
# /usr/share/java; CLOJURE_JARS points elsewhere for another layout.
CLOJURE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLOJURE_JARS=${CLOJURE_JARS:-/usr/share/java}

# clojure.jar needs spec.alpha and core.specs.alpha; core.async needs tools.analyzer.jvm and
# what that depends on (all shipped as sources, which is why AOT compiling pays off).
CLOJURE_DEPS="clojure spec.alpha core.specs.alpha core.async tools.analyzer.jvm tools.analyzer
tools.reader core.memoize core.cache data.priority-map asm"

# The AOT-compiled classes come first; src stays on the path so a missing or stale class
# falls back to the source (Clojure loads whichever is newer).
CLOJURE_CP="$CLOJURE_DIR/classes:$CLOJURE_DIR/src"
for dep in $CLOJURE_DEPS; do CLOJURE_CP="$CLOJURE_CP:$CLOJURE_JARS/$dep.jar"; done

# The jars a run cannot do without; callers report which are missing.
clojure_missing_jars() {
    local dep missing=
    for dep in $CLOJURE_DEPS; do
        [ -f "$CLOJURE_JARS/$dep.jar" ] || missing="$missing $dep.jar"
    done
    echo "${missing# }"
}
