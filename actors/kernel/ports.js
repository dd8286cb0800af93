/**
 * The ports: everything the domain needs from the outside world, as interfaces.
 * src/store, src/crypto and src/cli implement them; actors/ never imports src/.
 * Every method that touches storage is keyed by instance id first: no call can read
 * or write another tenant's keys by accident.
 */
/** The reserved tenant id under which system-level state (instances, domains) is kept. */
export const SYSTEM_TENANT = '_system';
