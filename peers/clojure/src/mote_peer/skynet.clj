(ns mote-peer.skynet
  "skynet on core.async: a tree of go blocks with fan-out 10."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(defn- node
  "The node covering leaves [off, off+size): a leaf puts off on `parent`; an inner node
  starts 10 children, sums their replies and puts the sum. Its reply channel holds all 10,
  so children end as soon as they have replied."
  [^long off ^long size parent]
  (a/go
    (if (= size 1)
      (a/>! parent off)
      (let [sub (quot size 10)
            replies (a/chan 10)]
        (dotimes [i 10] (node (+ off (* i sub)) sub replies))
        (loop [i 0 sum 0]
          (if (< i 10)
            (recur (inc i) (+ sum (long (a/<! replies))))
            (a/>! parent sum)))))))

(defn- power-of-10? [^long l]
  (and (pos? l) (loop [x l] (if (and (>= x 10) (zero? (rem x 10))) (recur (quot x 10)) (= x 1)))))

(defn validate [{:keys [l]}]
  (when-not (power-of-10? l) (str "skynet: l=" l " is not a power of 10")))

(defn run
  [_ {:keys [l]} _]
  (let [l (long l)
        start (c/now)
        root (a/chan 1)]
    (node 0 l root)
    (let [sum (a/<!! root)
          wall (- (c/now) start)
          want (quot (* l (dec l)) 2)]
      (when (not= sum want) (c/fail! "skynet: sum " sum ", want " want))
      {:wall-ns wall})))
