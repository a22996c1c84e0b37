(ns mote-peer.common
  "What every workload shares: the contract's random numbers and prime factor count, the
  clock, how a wrong answer or a usage error is reported, and the mailbox channel."
  (:require [clojure.core.async :as a]))

(set! *warn-on-reflection* true)

(defn fail!
  "A wrong answer: `ERROR <what>` on stderr and exit status 1 (the contract's rule)."
  [& parts]
  (binding [*out* *err*]
    (println (apply str "ERROR " parts))
    (flush))
  (System/exit 1))

(defn usage!
  "A usage error: the message on stderr and exit status 2."
  [& parts]
  (binding [*out* *err*]
    (println (apply str "mote-peer-clojure: " parts))
    (println "usage: mote-peer-clojure IMPL WORKLOAD VARIANT|- [k=v ...]")
    (flush))
  (System/exit 2))

(defn now
  "The monotonic clock, in nanoseconds."
  ^long []
  (System/nanoTime))

;; xorshift64* with a 64-bit state. A one-slot long array holds the state so the
;; generator stays a plain function over primitive longs (no boxing per draw).

(defn rng
  "A generator seeded with `seed` (nonzero)."
  ^longs [^long seed]
  (doto (long-array 1) (aset 0 seed)))

(defn next-long
  "The next 64-bit output (all arithmetic mod 2^64)."
  ^long [^longs r]
  (let [s (aget r 0)
        s (bit-xor s (unsigned-bit-shift-right s 12))
        s (bit-xor s (bit-shift-left s 25))
        s (bit-xor s (unsigned-bit-shift-right s 27))]
    (aset r 0 s)
    (unchecked-multiply s 0x2545F4914F6CDD1D)))

(defn uniform
  "A value in lo..=hi: lo + ((next >> 33) mod (hi - lo + 1))."
  ^long [^longs r ^long lo ^long hi]
  (+ lo (rem (unsigned-bit-shift-right (next-long r) 33) (inc (- hi lo)))))

(defn random-ints
  "The shared input of parsum and copy: n values uniform in 1..=1000, seed 42."
  ^longs [^long n]
  (let [r (rng 42)
        xs (long-array n)]
    (dotimes [i n] (aset xs i (uniform r 1 1000)))
    xs))

(defn sum-range
  "The sum of xs[lo..hi)."
  ^long [^longs xs ^long lo ^long hi]
  (loop [i lo s 0]
    (if (< i hi) (recur (inc i) (+ s (aget xs i))) s)))

(defn count-factors
  "The contract's prime factor count, with multiplicity."
  ^long [^long n]
  (loop [n n d 2 c 0]
    (cond
      (<= n 1) c
      (> (* d d) n) (inc c)
      (zero? (rem n d)) (recur (quot n d) d (inc c))
      :else (recur n (inc d) c))))

(defn ms
  "Nanoseconds as milliseconds with three decimals, always with a decimal point."
  [^long ns]
  (String/format java.util.Locale/ROOT "%.3f" (object-array [(/ ns 1e6)])))

(defn inbox
  "A channel standing in for a process's mailbox: `buf` slots, unbuffered when 0 (core.async
  wants no buffer rather than a buffer of size 0)."
  [^long buf]
  (if (pos? buf) (a/chan buf) (a/chan)))
