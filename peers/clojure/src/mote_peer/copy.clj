(ns mote-peer.copy
  "copy: R times, uniq (order-preserving dedup), frequencies and a shuffle of N ints. The
  input is a persistent vector built before the clock: immutable, so the three tasks share
  it by reference and nothing is copied."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn- uniq [data] (into [] (distinct) data))

(defn- shuffled
  "A Fisher-Yates shuffled copy driven by a fresh xorshift64* seeded with 7: for i from n-1
  down to 1, swap i with j = uniform(0..=i). Clojure's own `shuffle` draws from
  java.util.Random, which the contract rules out."
  ^longs [data]
  (let [^longs out (long-array data)
        r (c/rng 7)]
    (loop [i (dec (alength out))]
      (when (pos? i)
        (let [j (c/uniform r 0 i)
              x (aget out i)]
          (aset out i (aget out j))
          (aset out j x)
          (recur (dec i)))))
    out))

(defn- facts
  "What main checks about one rep's three results."
  [u f ^longs s]
  {:uniq (count u)
   :freq-total (reduce + (vals f))
   :shuf-len (alength s)
   :shuf-sum (c/sum-range s 0 (alength s))})

(defn run
  "`seq`: one after another on main's thread. `par`: each rep runs the three in
  `core.async/thread`s (the core.async home for CPU-bound work, which go blocks must not
  hog) and main takes the three results."
  [variant {:keys [n r]} _]
  (let [n (long n)
        data (vec (c/random-ints n))
        want (reduce + data)
        start (c/now)
        all (vec (for [_ (range r)]
                   (case variant
                     "seq" (facts (uniq data) (frequencies data) (shuffled data))
                     "par" (let [u (a/thread (uniq data))
                                 f (a/thread (frequencies data))
                                 s (a/thread (shuffled data))]
                             (facts (a/<!! u) (a/<!! f) (a/<!! s))))))
        wall (- (c/now) start)]
    (doseq [[rep {:keys [uniq freq-total shuf-len shuf-sum]}] (map-indexed vector all)]
      (when (and (>= n 100000) (not= uniq 1000))
        (c/fail! "copy " variant ": rep " rep " uniq count " uniq ", want 1000"))
      (when (not= freq-total n)
        (c/fail! "copy " variant ": rep " rep " frequencies sum to " freq-total ", want " n))
      (when (or (not= shuf-len n) (not= shuf-sum want))
        (c/fail! "copy " variant ": rep " rep " shuffle has length " shuf-len " sum " shuf-sum
                 ", want " n " and " want)))
    {:wall-ns wall}))
