(ns mote-peer.parsum
  "parsum on core.async: sum R ints in chunks of 100, REPS times. The input is a primitive
  long array; a chunk is an index range into it, so nothing is copied."
  (:require [clojure.core.async :as a]
            [mote-peer.common :as c]))

(set! *warn-on-reflection* true)

(def ^:private chunk-size 100)

(defn- chunks
  "[lo hi) index ranges of chunk-size (the last may be shorter)."
  [^long n]
  (vec (for [lo (range 0 n chunk-size)] [lo (min n (+ lo chunk-size))])))

(defn- serial [xs reps]
  (vec (for [_ (range reps)] (c/sum-range xs 0 (alength ^longs xs)))))

(defn- spawned
  "Per rep, one go block per chunk puts its partial sum on main's channel."
  [xs reps cs]
  (let [partials (a/chan (count cs))]
    (vec (for [_ (range reps)]
           (do (doseq [[lo hi] cs]
                 (a/go (a/>! partials (c/sum-range xs lo hi))))
               (reduce (fn [^long s _] (+ s (long (a/<!! partials)))) 0 cs))))))

(defn- pool
  "One go block per chunk, started before the clock (it is setup, not the subject), each
  holding its range; per rep main `put!`s `:go` to each and sums the replies."
  [xs reps cs]
  (let [partials (a/chan (count cs))
        inboxes (vec (for [[lo hi] cs]
                       (let [in (a/chan 1)]
                         (a/go-loop []
                           (when (a/<! in)
                             (a/>! partials (c/sum-range xs lo hi))
                             (recur)))
                         in)))
        start (c/now)
        sums (vec (for [_ (range reps)]
                    (do (run! #(a/put! % :go) inboxes)
                        (reduce (fn [^long s _] (+ s (long (a/<!! partials)))) 0 inboxes))))
        end (c/now)]
    (run! a/close! inboxes)
    [start end sums]))

(defn run
  [variant {:keys [r reps]} _]
  (let [xs (c/random-ints r)
        want (c/sum-range xs 0 r)
        cs (chunks r)
        timed (fn [f] (let [t (c/now) sums (f)] [t (c/now) sums]))
        [start end sums] (case variant
                           "serial" (timed #(serial xs reps))
                           "spawn" (timed #(spawned xs reps cs))
                           "pool" (pool xs reps cs))]
    (doseq [[rep s] (map-indexed vector sums)]
      (when (not= s want) (c/fail! "parsum " variant ": rep " rep " sum " s ", want " want)))
    {:wall-ns (- end start)}))
